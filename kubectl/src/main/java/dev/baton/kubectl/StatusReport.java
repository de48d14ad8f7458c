package dev.baton.kubectl;

import dev.baton.api.v1alpha1.ConditionType;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.api.v1alpha1.RouteStatus;
import dev.baton.client.BatonNames;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * {@code kubectl baton status}: the three views of each group side by side (the holder and term the
 * operator recorded from Redis, the pods and their role labels, the endpoints of the Services that
 * route to the leader), its conditions, its last leadership changes, and the namespace's locks.
 */
final class StatusReport {

  /** A group's conditions on its summary line, in this order. */
  private static final List<ConditionType> SUMMARY =
      List.of(
          ConditionType.Ready,
          ConditionType.Routed,
          ConditionType.RedisAvailable,
          ConditionType.Paused,
          ConditionType.SplitBrainSuspected);

  /** The conditions whose True is a problem, printed with their message. */
  private static final Set<String> PROBLEMS_WHEN_TRUE =
      Set.of(
          ConditionType.SplitBrainSuspected.name(),
          ConditionType.Conflict.name(),
          ConditionType.Invalid.name());

  /** The Event reasons that mean leadership changed hands (or was refused a change). */
  static final Set<String> LEADERSHIP_CHANGES =
      Set.of(
          "Initial",
          "LeaderDeleted",
          "LeaderNotReady",
          "LeaderTerminating",
          "LeaderNodeLost",
          "LeaderOptedOut",
          "LeaseExpired",
          "Switchover",
          "SwitchoverRefused",
          "NoCandidates",
          "FailoverPending",
          "FailoverAverted");

  private static final int FAILOVERS_SHOWN = 5;

  private final KubernetesClient client;
  private final String namespace;
  private final PrintStream out;

  StatusReport(KubernetesClient client, String namespace, PrintStream out) {
    this.client = client;
    this.namespace = namespace;
    this.out = out;
  }

  int print(String groupName) {
    List<LeaderGroup> groups;
    if (groupName != null) {
      LeaderGroup g =
          client.resources(LeaderGroup.class).inNamespace(namespace).withName(groupName).get();
      if (g == null) {
        out.println("No LeaderGroup " + groupName + " in namespace " + namespace + ".");
        return 1;
      }
      groups = List.of(g);
    } else {
      groups =
          client.resources(LeaderGroup.class).inNamespace(namespace).list().getItems().stream()
              .sorted(Comparator.comparing(g -> g.getMetadata().getName()))
              .toList();
      if (groups.isEmpty()) {
        out.println("No LeaderGroups in namespace " + namespace + ".");
      }
    }
    List<Event> events = client.v1().events().inNamespace(namespace).list().getItems();
    for (LeaderGroup g : groups) {
      group(g, events);
      out.println();
    }
    if (groupName == null) {
      locks();
    }
    return 0;
  }

  private void group(LeaderGroup g, List<Event> events) {
    LeaderGroupSpec spec = g.getSpec();
    LeaderGroupStatus status = g.getStatus() == null ? new LeaderGroupStatus() : g.getStatus();
    String roleLabel =
        spec.getRoleLabel() == null ? LeaderGroupSpec.DEFAULT_ROLE_LABEL : spec.getRoleLabel();
    out.println(
        "LeaderGroup "
            + namespace
            + "/"
            + g.getMetadata().getName()
            + (Boolean.TRUE.equals(spec.getPaused()) ? "   PAUSED" : ""));
    out.println("  " + conditionLine(status.getConditions()));
    out.println(
        "  Redis holder (as last recorded): "
            + (status.getLeader() == null || status.getLeader().isEmpty()
                ? "none"
                : status.getLeader()
                    + ", term "
                    + status.getTerm()
                    + (status.getLeaderSince() == null
                        ? ""
                        : ", since " + status.getLeaderSince())));
    if (status.getPendingFailover() != null) {
      out.println(
          "  Failover pending: "
              + status.getPendingFailover().getPod()
              + " is not ready; it moves at "
              + status.getPendingFailover().getFailoverAt()
              + " unless it recovers");
    }
    for (Condition c : status.getConditions()) {
      if (!"True".equals(c.getStatus()) && c.getType().equals(ConditionType.Ready.name())
          || "True".equals(c.getStatus()) && PROBLEMS_WHEN_TRUE.contains(c.getType())) {
        out.println("  " + c.getType() + ": " + c.getMessage());
      }
    }

    out.println("  Pods (" + roleLabel + "):");
    Table pods = new Table("POD", "ROLE", "READY", "TERM", "NODE");
    for (Pod p : candidates(spec)) {
      Map<String, String> labels = p.getMetadata().getLabels();
      Map<String, String> annotations = p.getMetadata().getAnnotations();
      pods.row(
          p.getMetadata().getName(),
          labels == null ? null : labels.get(roleLabel),
          ready(p) + (p.getMetadata().getDeletionTimestamp() != null ? " (terminating)" : ""),
          annotations == null ? null : annotations.get(BatonNames.TERM_ANNOTATION),
          p.getSpec() == null ? null : p.getSpec().getNodeName());
    }
    if (pods.isEmpty()) {
      out.println("    none selected");
    } else {
      pods.print(out, "    ");
    }

    List<RouteStatus> routing = status.getRouting();
    out.println("  Services routing to the leader:");
    if (routing == null || routing.isEmpty()) {
      out.println("    none");
    } else {
      Table services = new Table("SERVICE", "READY ENDPOINTS", "ROUTED", "MESSAGE");
      for (RouteStatus r : routing) {
        services.row(
            r.getService(),
            String.join(",", r.getEndpoints()),
            Boolean.TRUE.equals(r.getRouted()) ? "yes" : "no",
            r.getMessage());
      }
      services.print(out, "    ");
    }

    List<Event> changes =
        events.stream()
            .filter(e -> e.getInvolvedObject() != null)
            .filter(e -> "LeaderGroup".equals(e.getInvolvedObject().getKind()))
            .filter(e -> g.getMetadata().getName().equals(e.getInvolvedObject().getName()))
            .filter(e -> LEADERSHIP_CHANGES.contains(e.getReason()))
            .sorted(Comparator.comparing(StatusReport::when))
            .toList();
    out.println("  Last leadership changes:");
    if (changes.isEmpty()) {
      out.println("    none recorded");
    } else {
      Table t = new Table("TIME", "REASON", "MESSAGE");
      changes
          .subList(Math.max(0, changes.size() - FAILOVERS_SHOWN), changes.size())
          .forEach(e -> t.row(when(e), e.getReason(), e.getMessage()));
      t.print(out, "    ");
    }
  }

  private void locks() {
    List<RedisLock> locks =
        client.resources(RedisLock.class).inNamespace(namespace).list().getItems().stream()
            .sorted(Comparator.comparing(l -> l.getMetadata().getName()))
            .toList();
    out.println("RedisLocks in " + namespace + ":");
    if (locks.isEmpty()) {
      out.println("  none");
      return;
    }
    Table t = new Table("LOCK", "HOLDER", "TOKEN", "EXPIRES", "READY");
    for (RedisLock l : locks) {
      RedisLockStatus s = l.getStatus() == null ? new RedisLockStatus() : l.getStatus();
      t.row(
          l.getMetadata().getName(),
          s.getHolder(),
          s.getFencingToken(),
          s.getExpiresAt(),
          condition(s.getConditions(), ConditionType.Ready).map(Condition::getStatus).orElse(null));
    }
    t.print(out, "  ");
  }

  private List<Pod> candidates(LeaderGroupSpec spec) {
    if (spec.getSelector() == null) {
      return List.of();
    }
    return client
        .pods()
        .inNamespace(namespace)
        .withLabelSelector(spec.getSelector())
        .list()
        .getItems()
        .stream()
        .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
        .toList();
  }

  private static String conditionLine(List<Condition> conditions) {
    StringBuilder line = new StringBuilder();
    for (ConditionType type : SUMMARY) {
      condition(conditions, type)
          .ifPresent(
              c ->
                  line.append(line.length() == 0 ? "" : "  ")
                      .append(type)
                      .append('=')
                      .append(c.getStatus())
                      .append(
                          c.getReason() == null || c.getReason().isEmpty()
                              ? ""
                              : " (" + c.getReason() + ")"));
    }
    return line.length() == 0 ? "no conditions yet" : line.toString();
  }

  private static Optional<Condition> condition(List<Condition> conditions, ConditionType type) {
    return conditions == null
        ? Optional.empty()
        : conditions.stream().filter(c -> type.name().equals(c.getType())).findFirst();
  }

  private static String ready(Pod p) {
    if (p.getStatus() == null || p.getStatus().getConditions() == null) {
      return "False";
    }
    return p.getStatus().getConditions().stream()
        .filter(c -> "Ready".equals(c.getType()))
        .map(c -> c.getStatus())
        .findFirst()
        .orElse("False");
  }

  /** An Event's last time, whichever of the fields its writer filled in. */
  static String when(Event e) {
    return Objects.requireNonNullElse(
        e.getLastTimestamp(),
        Objects.requireNonNullElse(
            e.getEventTime() == null ? null : e.getEventTime().getTime(),
            Objects.requireNonNullElse(e.getFirstTimestamp(), "")));
  }
}
