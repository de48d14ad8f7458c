package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The watcher that tests and benchmarks trust with the one-leader invariant, on the embedded API
 * server with kube-apiserver v1.32's latencies: it sees an overlap the server stored, and none
 * where every demotion landed before the next promotion, however close together they land.
 */
class RoleWatcherTest {

  private static final String ROLE = "baton.dev/role";

  private final EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start();
  private final KubernetesClient client = kubernetes.client();

  @AfterEach
  void stop() {
    kubernetes.close();
  }

  @Test
  void seesTwoLeadersWhenAPromotionLandsBeforeTheDemotion() {
    createPods();
    try (KubernetesClient watching = kubernetes.newClient();
        RoleWatcher watcher = new RoleWatcher(watching, "shop", ROLE)) {
      kubernetes.latency(LatencyProfile.kubeApiserver132(5));
      role("p0", "leader");
      role("p1", "leader");
      role("p0", "follower");
      await().atMost(Duration.ofSeconds(10)).until(() -> watcher.history().size() >= 3);

      assertThat(watcher.violations()).hasSize(1).first().asString().contains("[p0, p1]");
      assertThat(watcher.outOfOrder()).isEmpty();
    }
  }

  @Test
  void seesOneLeaderWhenEveryDemotionLandsFirstBackToBack() {
    createPods();
    int moves = 60;
    try (KubernetesClient watching = kubernetes.newClient();
        RoleWatcher watcher = new RoleWatcher(watching, "shop", ROLE)) {
      kubernetes.latency(LatencyProfile.kubeApiserver132(17));
      role("p0", "leader");
      for (int i = 0; i < moves; i++) {
        String from = "p" + (i % 2);
        String to = "p" + ((i + 1) % 2);
        role(from, "follower");
        role(to, "leader");
      }
      await().atMost(Duration.ofSeconds(20)).until(() -> watcher.leaderChanges() == moves);

      assertThat(watcher.outOfOrder()).isEmpty();
      assertThat(watcher.violations()).isEmpty();
    }
  }

  private void createPods() {
    for (String name : new String[] {"p0", "p1"}) {
      client.pods().resource(Sandbox.readyPod("shop", name, Map.of("app", "a"))).create();
    }
  }

  private void role(String pod, String role) {
    client
        .pods()
        .inNamespace("shop")
        .withName(pod)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"labels\":{\"" + ROLE + "\":\"" + role + "\"}}}");
  }
}
