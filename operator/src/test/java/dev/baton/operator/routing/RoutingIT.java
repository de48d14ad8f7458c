package dev.baton.operator.routing;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testkit.Sandbox;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * Traffic follows the leader (docs/design.md, "Routing"): the Routed condition and status.routing
 * against Services routed by the test's EndpointSlice controller. The one-write mode's own slice is
 * {@link OwnedServiceIT}; spec.failoverDelay, {@link FailoverDelayIT}.
 */
class RoutingIT extends RoutingTest {

  private long convergences() throws Exception {
    Matcher m =
        Pattern.compile(
                "baton_routing_convergence_seconds_count\\{group=\"payments\",namespace=\"shop\"\\}"
                    + " ([0-9.]+)")
            .matcher(cluster.metrics());
    return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
  }

  /** Three pods, a leader Service over them, the operator and the group: its leader, routed. */
  private String startRouted() {
    payments.createPods(3);
    cluster.createLeaderService("payments-leader", Map.of("app", "payments", ROLE, "leader"));
    cluster.startOperator();
    cluster.create(Sandbox.group("payments", "payments"));
    String leader = cluster.awaitLeader("payments", ROLE);
    payments.awaitRoutedTo(leader, "payments-leader");
    return leader;
  }

  @Test
  void routingIsReportedAndTimedAfterEveryLeaderChange() throws Exception {
    startRouted();
    assertThat(payments.routed().getReason()).isEqualTo("RoutedToLeader");
    await().atMost(WAIT).until(() -> convergences() >= 1);

    for (int i = 0; i < 3; i++) {
      String old = cluster.awaitLeader("payments", ROLE);
      long before = convergences();
      cluster.deletePod(old);
      await()
          .atMost(WAIT)
          .until(() -> !cluster.leaders(ROLE).isEmpty() && !cluster.leaders(ROLE).contains(old));
      // Recreated only now: a new pod of the same name, created in the same second as the others,
      // may rightly be chosen (oldest first, then by name).
      payments.createPod(old, 20 + i);
      String next = cluster.awaitLeader("payments", ROLE);
      payments.awaitRoutedTo(next, "payments-leader");
      await().atMost(WAIT).until(() -> convergences() > before);
    }
    assertThat(cluster.eventReasons("payments")).doesNotContain("RoutingSlow");
  }

  @Test
  void aStaleEndpointKeepsRoutedFalseWarnsAndClearsWhenTheControllerCatchesUp() {
    String old = startRouted();

    endpoints.pause(true);
    cluster.setReady(old, false);
    await()
        .atMost(WAIT)
        .until(() -> !cluster.leaders(ROLE).isEmpty() && !cluster.leaders(ROLE).contains(old));
    String next = cluster.awaitLeader("payments", ROLE);
    payments.awaitRouted(
        c ->
            c.hasStatus("False")
                .hasReason("StaleEndpoint")
                .hasMessageContaining(
                    "payments-leader lists [" + old + "], not the leader " + next));
    // Past the 10 s bound, a Warning names the Service.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(cluster.events("payments"))
                    .anySatisfy(
                        e -> {
                          assertThat(e.getReason()).isEqualTo("RoutingSlow");
                          assertThat(e.getType()).isEqualTo("Warning");
                          assertThat(e.getMessage()).contains("payments-leader");
                        }));
    assertThat(payments.routed().getStatus()).isEqualTo("False");

    endpoints.pause(false);
    payments.awaitRoutedTo(next, "payments-leader");
    await().atMost(WAIT).until(() -> cluster.eventReasons("payments").contains("RoutingConverged"));
  }

  @Test
  void aServiceWhoseOtherLabelsExcludeTheLeaderIsReported() {
    payments.createPods(2);
    cluster.startOperator();
    cluster.create(Sandbox.group("payments", "payments"));
    cluster.awaitLeader("payments", ROLE);
    payments.awaitRouted(c -> c.hasStatus("Unknown").hasReason("NoLeaderService"));

    cluster.createLeaderService(
        "payments-web", Map.of("app", "payments", ROLE, "leader", "tier", "web"));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              payments.assertRouted().hasStatus("False").hasReason("SelectorExcludesLeader");
              payments.assertRouted().hasMessageContaining("payments-web", "tier=web");
              assertThat(payments.routing())
                  .singleElement()
                  .satisfies(r -> assertThat(r.getRouted()).isFalse());
            });
  }
}
