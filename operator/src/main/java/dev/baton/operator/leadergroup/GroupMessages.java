package dev.baton.operator.leadergroup;

import dev.baton.operator.kube.EventReason;
import dev.baton.operator.routing.RouteConvergence;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/** The sentences the report step writes into conditions and Events. */
final class GroupMessages {

  static final String VIEWS_AGREE =
      "no disagreement between Redis, the pod labels and the leader Service endpoints has"
          + " outlived a renew interval";

  private GroupMessages() {}

  static String pending(FailoverDamping.Pending p) {
    return "the leader "
        + p.pod()
        + " is not ready; it stays leader until "
        + p.failoverAt().truncatedTo(ChronoUnit.MILLIS)
        + " (spec.failoverDelay) unless it becomes ready";
  }

  static String conflict(Map<String, String> conflicts) {
    Map<String, List<String>> byGroup = new TreeMap<>();
    conflicts.forEach((pod, g) -> byGroup.computeIfAbsent(g, k -> new ArrayList<>()).add(pod));
    StringBuilder sb = new StringBuilder();
    byGroup.forEach(
        (g, podNames) ->
            sb.append(sb.length() == 0 ? "" : "; ")
                .append("pods ")
                .append(String.join(", ", podNames.stream().sorted().toList()))
                .append(" are claimed by LeaderGroup ")
                .append(g)
                .append(" (it marked them, or it is older) and are left alone"));
    return sb.toString();
  }

  static String roleLabelNotAllowed(List<String> pods, String roleLabel) {
    List<String> sorted = pods.stream().sorted().toList();
    String shown =
        sorted.size() <= 5
            ? String.join(", ", sorted)
            : String.join(", ", sorted.subList(0, 5)) + " and " + (sorted.size() - 5) + " more";
    return "pods "
        + shown
        + " are left alone: the role label "
        + roleLabel
        + " is outside baton.dev/ and the prefixes the operator allows, and they are not annotated"
        + " baton.dev/allow-role-label="
        + roleLabel;
  }

  static String change(EventReason reason, String previous) {
    if (previous == null) {
      return "";
    }
    return switch (reason) {
      case LeaderDeleted -> " (" + previous + " is gone)";
      case LeaderNotReady -> " (" + previous + " is not ready)";
      case LeaderTerminating -> " (" + previous + " is terminating)";
      case LeaderNodeLost -> " (the node of " + previous + " is not ready)";
      case LeaderOptedOut -> " (" + previous + " is annotated baton.dev/candidate=false)";
      case Switchover -> " (switchover from " + previous + ")";
      case LeaseExpired -> " (the lease of " + previous + " expired)";
      default -> "";
    };
  }

  static String routingConverged(Duration after, String routes) {
    return "routing converged after " + seconds(after) + ": " + routes;
  }

  static String routingSlow(String routes) {
    return "routing has not converged "
        + seconds(RouteConvergence.WARN_AFTER)
        + " after the leader changed: "
        + routes;
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
