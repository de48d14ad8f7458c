package dev.baton.operator.leadergroup;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.client.ElectionKeys;
import dev.baton.operator.testing.ClusterTest;
import dev.baton.testkit.RoleWatcher;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What restarts keep (docs/design.md): Redis down fails static and comes back with the same leader,
 * Redis back empty keeps the leader with a higher term, an operator restart changes no label, and a
 * leader's pod replaced under the same name while no operator ran is reported as a new leader.
 */
class RestartsIT extends ClusterTest {

  @Test
  void redisDownKeepsLabelsAndRecoversWithTheSameLeader() {
    String leader = cluster.startGroup("payments", 3);
    Map<String, String> roles = cluster.roles(ROLE);
    try (RoleWatcher watcher = new RoleWatcher(cluster.client, NS, ROLE)) {
      cluster.redis.kill();
      cluster.awaitCondition("payments", "RedisAvailable", "False");
      // Fail static through several renew intervals, past the lease ttl.
      await()
          .during(Duration.ofSeconds(4))
          .atMost(WAIT)
          .untilAsserted(() -> assertThat(cluster.roles(ROLE)).isEqualTo(roles));

      cluster.redis.restart();
      cluster.awaitCondition("payments", "RedisAvailable", "True");
      assertThat(cluster.awaitLeader("payments", ROLE)).isEqualTo(leader);
      assertThat(cluster.roles(ROLE)).isEqualTo(roles);
      assertThat(watcher.leaderChanges()).isZero();
    }
  }

  @Test
  void redisRestartedEmptyKeepsTheLeaderWithAHigherTerm() {
    String leader = cluster.startGroup("payments", 3);
    // Move the term up a little so "greater" is not just 1 -> 2 by accident.
    cluster.client.pods().inNamespace(NS).withName(leader).delete();
    await()
        .atMost(WAIT)
        .until(() -> !cluster.leaders(ROLE).isEmpty() && !cluster.leaders(ROLE).contains(leader));
    String current = cluster.awaitLeader("payments", ROLE);
    long before = cluster.term("payments");

    cluster.redis.restart();

    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(cluster.term("payments")).isGreaterThan(before));
    assertThat(cluster.awaitLeader("payments", ROLE)).isEqualTo(current);
    assertThat(cluster.pod(current).getMetadata().getAnnotations())
        .containsEntry("baton.dev/term", Long.toString(cluster.term("payments")));
    assertThat(cluster.redis.command("GET", new ElectionKeys(NS + "/payments").term()))
        .contains(Long.toString(cluster.term("payments")));
  }

  @Test
  void operatorRestartKeepsTheLeaderAndChangesNoLabel() {
    String leader = cluster.startGroup("payments", 3);
    long termBefore = cluster.term("payments");
    try (RoleWatcher watcher = new RoleWatcher(cluster.client, NS, ROLE)) {
      await().atMost(WAIT).until(() -> !watcher.history().isEmpty());
      int eventsBefore = watcher.history().size();
      cluster.stopOperator();
      cluster.startOperator();
      cluster.awaitReconciled("payments");
      cluster.awaitLeaderKept("payments", leader, termBefore, Duration.ofSeconds(2));
      assertThat(watcher.history().size())
          .as("no label changed: %s", watcher.history())
          .isEqualTo(eventsBefore);
    }
  }

  @Test
  void aLeaderRecreatedUnderTheSameNameIsReportedAsANewLeader() {
    cluster.startGroup("db", 1);
    String oldUid = cluster.pod("db-0").getMetadata().getUid();
    cluster.stopOperator();

    // A StatefulSet's pod replaced while no operator ran: the same name, another pod.
    cluster.deletePod("db-0");
    await().atMost(WAIT).until(() -> cluster.pod("db-0") == null);
    cluster.createPod("db-0", "db");
    String newUid = cluster.pod("db-0").getMetadata().getUid();
    assertThat(newUid).isNotEqualTo(oldUid);
    cluster.startOperator();

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(cluster.status("db").getLeaderUID()).isEqualTo(newUid);
              assertThat(cluster.roles(ROLE)).containsEntry("db-0", "leader");
            });
    assertThat(cluster.events("db"))
        .extracting(e -> e.getMessage())
        .noneMatch(m -> m.contains("re-acquired"))
        .anyMatch(m -> m.startsWith("db-0 leads with term 2"));
  }
}
