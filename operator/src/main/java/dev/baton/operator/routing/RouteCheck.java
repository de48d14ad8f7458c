package dev.baton.operator.routing;

import dev.baton.api.v1alpha1.RouteStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * Whether traffic reaches the leader: every Service that routes to the group's leader must list
 * exactly the leader as a ready endpoint, with every port of the Service resolved, and no other pod
 * (docs/design.md, "Routing"). A pure function of what the informers show.
 */
public final class RouteCheck {

  /** The pod that leads now. */
  public record Leader(String name, Map<String, String> labels, boolean ready) {}

  /**
   * A Service that routes to the group's leader.
   *
   * @param selector its selector, or null for the Service Baton writes the endpoints of
   * @param endpoints every endpoint of its EndpointSlices that names a pod
   * @param ports the names of the Service's ports ("" for an unnamed one); empty: not checked
   */
  public record LeaderService(
      String name, Map<String, String> selector, List<Endpoint> endpoints, List<String> ports) {

    public LeaderService(String name, Map<String, String> selector, List<Endpoint> endpoints) {
      this(name, selector, endpoints, List.of());
    }
  }

  /**
   * @param ports the names of the ports its EndpointSlice gives it ("" for an unnamed one): the
   *     Service's ports that resolved on the pod; null when not known
   */
  public record Endpoint(String pod, boolean ready, Set<String> ports) {

    public Endpoint(String pod, boolean ready) {
      this(pod, ready, null);
    }
  }

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

  /**
   * The Service's ports that the leader's endpoint lacks: a named targetPort that no container of
   * the pod declares gives the slice no ports (before Kubernetes 1.33 a port declared only on a
   * native sidecar is not found), and kube-proxy then rejects every connection, although the
   * endpoint is listed and ready. Null when every port resolved.
   */
  private static String[] unresolved(Leader leader, LeaderService svc) {
    Set<String> has =
        svc.endpoints().stream()
            .filter(e -> e.ready() && e.pod().equals(leader.name()) && e.ports() != null)
            .flatMap(e -> e.ports().stream())
            .collect(Collectors.toCollection(TreeSet::new));
    boolean known =
        svc.endpoints().stream()
            .anyMatch(e -> e.ready() && e.pod().equals(leader.name()) && e.ports() != null);
    List<String> missing = svc.ports().stream().filter(p -> !has.contains(p)).toList();
    if (!known || missing.isEmpty()) {
      return null;
    }
    return new String[] {
      "PortsUnresolved",
      "Service "
          + svc.name()
          + " lists "
          + leader.name()
          + " without its port"
          + (missing.size() == 1 ? " " : "s ")
          + missing.stream().map(p -> p.isEmpty() ? "(unnamed)" : p).toList()
          + ": the targetPort names no port of the pod's containers (a port declared only on a"
          + " native sidecar is not found before Kubernetes 1.33), so kube-proxy refuses every"
          + " connection; use a numeric targetPort"
    };
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
      return unresolved(leader, svc);
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
