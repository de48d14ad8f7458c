package dev.baton.operator.redislock;

import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.operator.testing.BatonCluster;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A granted lock's holder whose node turns NotReady is replaced at once, as a group leader is: a
 * dead kubelet never marks its pods not ready, so waiting for the pod would mean waiting for the
 * lock's ttl.
 */
class LockNodeLossIT {

  /** Far longer than the wait below: a move on expiry would fail the test. */
  private static final String TTL = "60s";

  private static final String HELD = "locks.baton.dev/migration";

  private static String holder(BatonCluster cluster) {
    return cluster.pods().stream()
        .filter(p -> p.getMetadata().getLabels() != null)
        .filter(p -> "held".equals(p.getMetadata().getLabels().get(HELD)))
        .map(p -> p.getMetadata().getName())
        .findFirst()
        .orElse(null);
  }

  @Test
  void aLockHolderOnANodeTurnedNotReadyLosesTheLockToAPodOnAHealthyNode() {
    try (BatonCluster cluster = new BatonCluster();
        HeldLabelWatcher watcher = new HeldLabelWatcher(cluster.client, NS, "migration")) {
      cluster.createPodsOnNodes("migrate", 3);
      cluster.startOperator();
      cluster.create(BatonCluster.grantedLock("migration", TTL, "migrate"));
      await().atMost(WAIT).until(() -> cluster.lockStatus("migration").getFencingToken() != null);
      String first = cluster.lockStatus("migration").getHolder().replace(NS + "/", "");
      long firstToken = cluster.lockStatus("migration").getFencingToken();
      assertThat(holder(cluster)).isEqualTo(first);
      String lostNode = cluster.pod(first).getSpec().getNodeName();

      long lostAt = System.nanoTime();
      cluster.setNodeReady(lostNode, "False");

      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(5))
          .until(() -> watcher.holders().size() == 1 && !watcher.holders().contains(first));
      long movedMillis = (System.nanoTime() - lostAt) / 1_000_000;
      String next = watcher.holders().iterator().next();
      assertThat(cluster.pod(next).getSpec().getNodeName()).isNotEqualTo(lostNode);
      assertThat(cluster.pod(first).getStatus().getConditions())
          .as("the pod itself still says Ready: only its node is lost")
          .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                assertThat(cluster.lockStatus("migration").getHolder()).isEqualTo(NS + "/" + next);
                assertThat(cluster.lockStatus("migration").getFencingToken())
                    .isGreaterThan(firstToken);
              });
      assertThat(cluster.pod(first).getMetadata().getLabels()).doesNotContainKey(HELD);
      assertThat(cluster.eventReasons("migration")).contains("LockMoved");

      // The node back: the lock stays where it is (sticky), the watcher still sees one holder.
      cluster.setNodeReady(lostNode, "True");
      String expiresBefore = cluster.lockStatus("migration").getExpiresAt();
      await()
          .during(Duration.ofSeconds(1))
          .atMost(WAIT)
          .untilAsserted(() -> assertThat(watcher.holders()).containsExactly(next));
      // ...and not because the operator stopped looking: it renews the lock for the same pod.
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                assertThat(cluster.lockStatus("migration").getExpiresAt())
                    .isNotEqualTo(expiresBefore);
                assertThat(cluster.lockStatus("migration").getHolder()).isEqualTo(NS + "/" + next);
              });
      assertThat(watcher.holders()).containsExactly(next);
      assertThat(watcher.violations()).as(watcher.history()).isEmpty();
      System.out.println("granted lock moved off a lost node in " + movedMillis + " ms");
    }
  }
}
