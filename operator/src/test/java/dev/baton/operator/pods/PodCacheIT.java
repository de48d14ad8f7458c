package dev.baton.operator.pods;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.testing.ClusterTest;
import dev.baton.testkit.RealisticPods;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The operator caches a skeleton of each pod a group or lock selects and a compact copy of every
 * other (docs/design.md, "A cache the size of what matters"): pods created before their group, and
 * pods that come to match it later, are still seen, and the operator's writes leave every field it
 * does not cache as it was.
 */
class PodCacheIT extends ClusterTest {

  @Test
  void podsBeforeTheGroupAndPodsThatComeToMatchItAreSeenAndKeepTheirFields() {
    for (int i = 0; i < 2; i++) {
      cluster.createPod(RealisticPods.pod(NS, "payments-" + i, Map.of("app", "payments")));
    }
    cluster.createPod(RealisticPods.pod(NS, "late", Map.of("app", "other")));
    for (int i = 0; i < 20; i++) {
      cluster.createPod(RealisticPods.pod(NS, "unrelated-" + i, Map.of("app", "unrelated")));
    }
    cluster.startOperator();
    cluster.create(Sandbox.group("payments", "payments"));
    String leader = cluster.awaitLeader("payments", ROLE);
    assertThat(leader).startsWith("payments-");

    // Labeled by the operator; everything the cache does not hold is still on the pod.
    Pod written = cluster.pod(leader);
    assertThat(written.getMetadata().getAnnotations())
        .containsKey("kubectl.kubernetes.io/last-applied-configuration")
        .containsEntry("prometheus.io/scrape", "true")
        .containsKey("baton.dev/term");
    assertThat(written.getSpec().getContainers()).hasSize(3);
    assertThat(written.getSpec().getContainers().get(0).getEnv()).isNotEmpty();
    assertThat(written.getSpec().getVolumes()).hasSize(1);
    assertThat(written.getStatus().getContainerStatuses()).hasSize(1);

    // A pod whose labels change to match the group is a candidate at once.
    cluster
        .client
        .pods()
        .inNamespace(NS)
        .withName("late")
        .edit(
            p -> {
              Map<String, String> labels = new HashMap<>(p.getMetadata().getLabels());
              labels.put("app", "payments");
              p.getMetadata().setLabels(labels);
              return p;
            });
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(cluster.status("payments").getCandidates()).isEqualTo(3);
              assertThat(cluster.roles(ROLE)).containsEntry("late", "follower");
            });
    // It can lead: the others turn not ready.
    cluster.setReady("payments-0", false);
    cluster.setReady("payments-1", false);
    await().atMost(WAIT).until(() -> cluster.leaders(ROLE).equals(java.util.List.of("late")));
    Pod late = cluster.pod("late");
    assertThat(late.getSpec().getVolumes()).hasSize(1);
    assertThat(late.getMetadata().getAnnotations())
        .containsKey("kubectl.kubernetes.io/last-applied-configuration");
    assertThat(cluster.roles(ROLE)).doesNotContainKey("unrelated-0");
  }

  @Test
  void podsThatCameBeforeTheirGroupWhileTheOperatorRanAreKeptCompactThenWhole() {
    cluster.startOperator();
    for (int i = 0; i < 3; i++) {
      cluster.createPod(RealisticPods.pod(NS, "orders-" + i, Map.of("app", "orders")));
    }
    for (int i = 0; i < 30; i++) {
      cluster.createPod(RealisticPods.pod(NS, "noise-" + i, Map.of("app", "noise")));
    }
    // No group selects any of them yet: all compact.
    await().atMost(WAIT).until(() -> cachedPods("compact") == 33 && cachedPods("whole") == 0);

    cluster.create(Sandbox.group("orders", "orders"));
    String leader = cluster.awaitLeader("orders", ROLE);
    assertThat(leader).startsWith("orders-");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(cluster.status("orders").getCandidates()).isEqualTo(3);
              assertThat(cachedPods("whole")).isEqualTo(3);
              assertThat(cachedPods("compact")).isEqualTo(30);
            });

    // A compact pod's deletion is still heard, and it leaves the cache.
    cluster.client.pods().inNamespace(NS).withName("noise-0").delete();
    await().atMost(WAIT).until(() -> cachedPods("compact") == 29);
    // The leader's own failover works from the whole copies.
    cluster.client.pods().inNamespace(NS).withName(leader).delete();
    await().atMost(WAIT).until(() -> cluster.soleLeader(ROLE), p -> p != null && !p.equals(leader));
  }

  private double cachedPods(String form) {
    var gauge =
        cluster.operator().registry().find(BatonMetrics.CACHED_PODS).tag("form", form).gauge();
    return gauge == null ? -1 : gauge.value();
  }
}
