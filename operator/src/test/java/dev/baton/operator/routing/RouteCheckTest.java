package dev.baton.operator.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.operator.routing.RouteCheck.Endpoint;
import dev.baton.operator.routing.RouteCheck.Leader;
import dev.baton.operator.routing.RouteCheck.LeaderService;
import dev.baton.operator.routing.RouteCheck.State;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RouteCheckTest {

  private static final String ROLE = "baton.dev/role";
  private static final Leader A = new Leader("a", Map.of("app", "x", ROLE, "leader"), true);
  private static final Map<String, String> SELECTOR = Map.of("app", "x", ROLE, "leader");

  private static LeaderService svc(String name, Endpoint... endpoints) {
    return new LeaderService(name, SELECTOR, List.of(endpoints));
  }

  @Test
  void exactlyTheLeaderIsRouted() {
    var v =
        RouteCheck.check(
            A, ROLE, List.of(svc("s", new Endpoint("a", true), new Endpoint("b", false))));
    assertThat(v.state()).isEqualTo(State.ROUTED);
    assertThat(v.routes())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getEndpoints()).containsExactly("a");
              assertThat(r.getRouted()).isTrue();
            });
  }

  @Test
  void aLeaderListedWithoutTheServicesPortIsNotRouted() {
    // The slice of a Service whose targetPort names a port declared only on a native sidecar, on
    // Kubernetes before 1.33: the endpoint is there and ready, its ports are not.
    var gate =
        new LeaderService(
            "s", SELECTOR, List.of(new Endpoint("a", true, java.util.Set.of())), List.of("gate"));
    var v = RouteCheck.check(A, ROLE, List.of(gate));
    assertThat(v.state()).isEqualTo(State.NOT_ROUTED);
    assertThat(v.reason()).isEqualTo("PortsUnresolved");
    assertThat(v.message()).contains("without its port [gate]").contains("numeric targetPort");
    var resolved =
        new LeaderService(
            "s",
            SELECTOR,
            List.of(new Endpoint("a", true, java.util.Set.of("gate"))),
            List.of("gate"));
    assertThat(RouteCheck.check(A, ROLE, List.of(resolved)).state()).isEqualTo(State.ROUTED);
  }

  @Test
  void eachWayOfNotRoutingHasItsReason() {
    assertThat(RouteCheck.check(A, ROLE, List.of(svc("s"))).reason()).isEqualTo("NoEndpoints");
    assertThat(
            RouteCheck.check(new Leader("a", A.labels(), false), ROLE, List.of(svc("s"))).reason())
        .isEqualTo("LeaderNotReady");
    var stale = RouteCheck.check(A, ROLE, List.of(svc("s", new Endpoint("b", true))));
    assertThat(stale.reason()).isEqualTo("StaleEndpoint");
    assertThat(stale.message()).contains("lists [b], not the leader a");
    var two =
        RouteCheck.check(
            A, ROLE, List.of(svc("s", new Endpoint("a", true), new Endpoint("b", true))));
    assertThat(two.message()).contains("lists the leader a and also [b]");
    var excluded =
        RouteCheck.check(
            A,
            ROLE,
            List.of(
                new LeaderService(
                    "s", Map.of("app", "x", ROLE, "leader", "tier", "web"), List.of())));
    assertThat(excluded.reason()).isEqualTo("SelectorExcludesLeader");
    assertThat(excluded.message()).contains("tier=web");
    assertThat(RouteCheck.check(null, ROLE, List.of(svc("s"))).reason()).isEqualTo("NoLeader");
    assertThat(RouteCheck.check(A, ROLE, List.of()).state()).isEqualTo(State.NO_SERVICE);
  }

  @Test
  void oneServiceBehindMakesTheGroupNotRoutedAndIsNamed() {
    var v =
        RouteCheck.check(
            A,
            ROLE,
            List.of(svc("good", new Endpoint("a", true)), svc("late", new Endpoint("b", true))));
    assertThat(v.state()).isEqualTo(State.NOT_ROUTED);
    assertThat(v.message()).contains("Service late").doesNotContain("Service good");
    assertThat(v.routes()).hasSize(2);
  }

  @Test
  void convergenceIsTimedOnceAndWarnedOnceAfterTheBound() {
    RouteConvergence c = RouteConvergence.IDLE;
    assertThat(c.observe(State.NOT_ROUTED, 0).converged()).isNull();
    c = c.leaderChanged(0);
    var early = c.observe(State.NOT_ROUTED, Duration.ofSeconds(2).toNanos());
    assertThat(early.slow()).isFalse();
    assertThat(early.lookAgainIn()).isEqualTo(Duration.ofSeconds(8));
    c = early.next();
    var late = c.observe(State.NOT_ROUTED, Duration.ofSeconds(11).toNanos());
    assertThat(late.slow()).isTrue();
    c = late.next();
    var later = c.observe(State.NOT_ROUTED, Duration.ofSeconds(12).toNanos());
    assertThat(later.slow()).isFalse();
    c = later.next();
    var routed = c.observe(State.ROUTED, Duration.ofSeconds(13).toNanos());
    assertThat(routed.converged()).isEqualTo(Duration.ofSeconds(13));
    c = routed.next();
    assertThat(c.observe(State.ROUTED, Duration.ofSeconds(14).toNanos()).converged()).isNull();
  }
}
