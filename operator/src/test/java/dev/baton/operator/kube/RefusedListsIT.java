package dev.baton.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.operator.BatonOperator;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.FreePorts;
import dev.baton.testkit.Sandbox;
import dev.baton.testkit.Timeouts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * An operator started while the API server refuses its first lists, as a real one does for about a
 * second after its CRDs were created or after it restarted (429 "storage is (re)initializing",
 * Retry-After 1): it lists again as the server asks, answers /readyz 503 meanwhile, and once the
 * lists are served it starts and elects; it never gives up.
 */
class RefusedListsIT {

  private static final Duration WAIT = Timeouts.LONG_WAIT;
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void theFirstListsRefused429AreListedAgainAsTheServerAsksAndTheOperatorStartsNotReadyMeanwhile()
      throws Exception {
    int port = FreePorts.any();
    try (Sandbox sandbox = new Sandbox(EmbeddedKubernetes.start(), BatonOperator::launch)) {
      EmbeddedKubernetes api = (EmbeddedKubernetes) sandbox.kube;
      for (int i = 0; i < 3; i++) {
        sandbox.createPod("payments-" + i, "payments");
      }
      sandbox.create(Sandbox.group("payments", "payments"));
      // Three refusals each: the first is asked again after its Retry-After by the client, the
      // second fails the list, which the informer lists again on its own back-off.
      api.refuseLists("leadergroups", 3).refuseLists("pods", 3).refuseLists("redislocks", 3);
      sandbox.env("BATON_HTTP_PORT", Integer.toString(port));
      CompletableFuture<Void> started = CompletableFuture.runAsync(() -> sandbox.startOperator());

      List<String> notReady = new CopyOnWriteArrayList<>();
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(50))
          .until(
              () -> {
                HttpResponse<String> r = readyz(port);
                if (r != null && r.statusCode() != 200) {
                  notReady.add(r.statusCode() + " " + r.body());
                }
                return started.isDone();
              });
      started.join();

      assertThat(notReady).as("/readyz while the lists were refused").isNotEmpty();
      assertThat(notReady).allMatch(s -> s.startsWith("503"));
      assertThat(notReady).anyMatch(s -> s.contains("the API server refused a read"));
      for (String plural : List.of("leadergroups", "pods", "redislocks")) {
        List<Long> refused = api.refusedLists(plural);
        assertThat(refused).as(plural + " refused").hasSize(3);
        // The list after the first refusal waited the second its Retry-After asked for.
        assertThat(refused.get(1) - refused.get(0))
            .as(plural + ": the wait before listing again")
            .isGreaterThanOrEqualTo(Duration.ofMillis(950).toNanos());
      }
      assertThat(readyz(port).statusCode()).isEqualTo(200);
      await()
          .atMost(WAIT)
          .until(() -> sandbox.leaders(LeaderGroupSpec.DEFAULT_ROLE_LABEL).size() == 1);
    }
  }

  /** /readyz's answer, or null while nothing listens on the port yet. */
  private HttpResponse<String> readyz(int port) throws InterruptedException {
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/readyz"))
              .timeout(Duration.ofSeconds(2))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      return null;
    }
  }
}
