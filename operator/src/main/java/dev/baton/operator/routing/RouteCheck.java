package dev.baton.operator.routing;

import dev.baton.api.v1alpha1.RouteStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Whether traffic reaches the leader: every Service that routes to the group's leader must list
 * exactly the leader as a ready endpoint, and no other pod (docs/design.md, "Routing"). A pure
 * function of what the informers show.
 */
public final class RouteCheck {

  /** The pod that leads now. */
  public record Leader(String name, Map<String, String> labels, boolean ready) {}

  /**
   * A Service that routes to the group's leader.
   *
   * @param selector its selector, or null for the Service Baton writes the endpoints of
   * @param endpoints every endpoint of its EndpointSlices that names a pod
   */
  public record LeaderService(
      String name, Map<String, String> selector, List<Endpoint> endpoints) {}

  public record Endpoint(String pod, boolean ready) {}

  public enum State {
    /** No Service routes to this group's leader: nothing to check. */
    NO_SERVICE,
    ROUTED,
    NOT_ROUTED
  }

  /**
   * @param routes one per Service, by name
   * @param reason the condition's reason: the first problem found, or RoutedToLeader
   * @param message every problem found, or where traffic goes
   */
  public record Verdict(List<RouteStatus> routes, State state, String reason, String message) {}

  private RouteCheck() {}

  /**
   * @param leader the pod that leads, or null when nobody does
   * @param roleLabel the group's role label: the one selector label the leader gets from Baton
   */
  public static Verdict check(Leader leader, String roleLabel, List<LeaderService> services) {
    if (services.isEmpty()) {
      return new Verdict(
          List.of(),
          State.NO_SERVICE,
          "NoLeaderService",
          "no Service selects "
              + roleLabel
              + "=leader for this group's pods, and spec.service"
              + " is not set");
    }
    List<RouteStatus> routes = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    String firstReason = null;
    for (LeaderService svc :
        services.stream().sorted((a, b) -> a.name().compareTo(b.name())).toList()) {
      TreeSet<String> ready = new TreeSet<>();
      svc.endpoints().stream().filter(Endpoint::ready).forEach(e -> ready.add(e.pod()));
      String[] problem = problem(leader, roleLabel, svc, ready);
      routes.add(
          new RouteStatus(
              svc.name(),
              List.copyOf(ready),
              problem == null,
              problem == null ? null : problem[1]));
      if (problem != null) {
        firstReason = firstReason == null ? problem[0] : firstReason;
        problems.add(problem[1]);
      }
    }
    if (firstReason == null) {
      return new Verdict(
          routes,
          State.ROUTED,
          "RoutedToLeader",
          "every leader Service lists exactly "
              + leader.name()
              + ": "
              + String.join(", ", routes.stream().map(RouteStatus::getService).toList()));
    }
    return new Verdict(routes, State.NOT_ROUTED, firstReason, String.join("; ", problems));
  }

  /** Reason and message, or null when this Service lists exactly the leader. */
  private static String[] problem(
      Leader leader, String roleLabel, LeaderService svc, TreeSet<String> ready) {
    String name = "Service " + svc.name();
    if (leader == null) {
      return ready.isEmpty()
          ? new String[] {"NoLeader", name + ": nobody leads"}
          : new String[] {"StaleEndpoint", name + " still lists " + ready + " while nobody leads"};
    }
    if (svc.selector() != null) {
      for (var e : svc.selector().entrySet()) {
        String has = leader.labels() == null ? null : leader.labels().get(e.getKey());
        if (!e.getKey().equals(roleLabel) && !e.getValue().equals(has)) {
          return new String[] {
            "SelectorExcludesLeader",
            name
                + " also selects "
                + e.getKey()
                + "="
                + e.getValue()
                + ", which the leader "
                + leader.name()
                + " does not carry"
          };
        }
      }
    }
    if (ready.size() == 1 && ready.contains(leader.name())) {
      return null;
    }
    if (ready.isEmpty()) {
      return leader.ready()
          ? new String[] {
            "NoEndpoints", name + " lists no ready endpoint, not yet " + leader.name()
          }
          : new String[] {
            "LeaderNotReady",
            name + " lists no ready endpoint: the leader " + leader.name() + " is not ready"
          };
    }
    TreeSet<String> others = new TreeSet<>(ready);
    others.remove(leader.name());
    return ready.contains(leader.name())
        ? new String[] {
          "StaleEndpoint", name + " lists the leader " + leader.name() + " and also " + others
        }
        : new String[] {
          "StaleEndpoint", name + " lists " + others + ", not the leader " + leader.name()
        };
  }
}
