package dev.baton.operator.routing;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testkit.Sandbox;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
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

  private String metrics() throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + cluster.operator().httpPort() + "/metrics"))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private long convergences() throws Exception {
    Matcher m =
        Pattern.compile(
                "baton_routing_convergence_seconds_count\\{group=\"payments\",namespace=\"shop\"\\}"
                    + " ([0-9.]+)")
            .matcher(metrics());
    return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
  }

  @Test
  void routingIsReportedAndTimedAfterEveryLeaderChange() throws Exception {
    payments.createPods(3);
    payments.createLeaderService("payments-leader", Map.of("app", "payments", ROLE, "leader"));
    cluster.startOperator();
    cluster.create(Sandbox.group("payments", "payments"));
    String first = cluster.awaitLeader("payments", ROLE);
    payments.awaitRoutedTo(first, "payments-leader");
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
    payments.createPods(3);
    payments.createLeaderService("payments-leader", Map.of("app", "payments", ROLE, "leader"));
    cluster.startOperator();
    cluster.create(Sandbox.group("payments", "payments"));
    String old = cluster.awaitLeader("payments", ROLE);
    payments.awaitRoutedTo(old, "payments-leader");

    endpoints.pause(true);
    cluster.setReady(old, false);
    await()
        .atMost(WAIT)
        .until(() -> !cluster.leaders(ROLE).isEmpty() && !cluster.leaders(ROLE).contains(old));
    String next = cluster.awaitLeader("payments", ROLE);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(payments.routed().getStatus()).isEqualTo("False");
              assertThat(payments.routed().getReason()).isEqualTo("StaleEndpoint");
              assertThat(payments.routed().getMessage())
                  .contains("payments-leader lists [" + old + "], not the leader " + next);
            });
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
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(payments.routed().getStatus()).isEqualTo("Unknown");
              assertThat(payments.routed().getReason()).isEqualTo("NoLeaderService");
            });

    payments.createLeaderService(
        "payments-web", Map.of("app", "payments", ROLE, "leader", "tier", "web"));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(payments.routed().getStatus()).isEqualTo("False");
              assertThat(payments.routed().getReason()).isEqualTo("SelectorExcludesLeader");
              assertThat(payments.routed().getMessage()).contains("payments-web", "tier=web");
              assertThat(payments.routing())
                  .singleElement()
                  .satisfies(r -> assertThat(r.getRouted()).isFalse());
            });
  }
}
