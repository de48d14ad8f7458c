package dev.baton.operator.leadergroup;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisConnectionRef;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.ClusterTest;
import dev.baton.testkit.RoleWatcher;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Misconfigured groups end in a condition and leave the others alone: a later group over pods an
 * earlier one holds (Conflict), a group that selects no pod, whose Secret is missing or whose Redis
 * is unreachable, and an invalid spec. Each bad value on its own is a row of security/BadInputTest.
 */
class MisconfiguredGroupIT extends ClusterTest {

  @Test
  void laterGroupOverTheSamePodsReportsConflictAndTouchesNothing() {
    String leader = cluster.startGroup("payments", 3);
    Map<String, String> roles = cluster.roles(ROLE);
    try (RoleWatcher watcher = new RoleWatcher(cluster.client, NS, ROLE)) {
      await().atMost(WAIT).until(() -> !watcher.history().isEmpty());
      int seen = watcher.history().size();
      cluster.create(BatonCluster.group("payments-copy", "payments"));

      cluster.awaitCondition(
          "payments-copy",
          "Conflict",
          c -> c.hasStatus("True").hasMessageContaining("LeaderGroup payments"));
      await()
          .during(Duration.ofSeconds(1))
          .atMost(WAIT)
          .untilAsserted(() -> assertThat(cluster.roles(ROLE)).isEqualTo(roles));
      assertThat(watcher.history()).hasSize(seen);
      assertThat(cluster.status("payments-copy").getLeader()).isEmpty();
      cluster.assertCondition("payments", "Conflict").hasStatus("False");
      assertThat(cluster.leaders(ROLE)).containsExactly(leader);
      assertThat(cluster.pod(leader).getMetadata().getAnnotations())
          .containsEntry("baton.dev/leader-group", "payments");
    }
  }

  @Test
  void badInputEndsInAConditionAndLeavesOtherGroupsAlone() {
    cluster.createPods("payments", 3);
    cluster.createPods("orders", 3);
    cluster.createPods("billing", 3);
    cluster.startOperator();
    cluster.create(BatonCluster.group("payments", "payments"));

    LeaderGroup nothing = BatonCluster.group("nothing", "no-such-app");
    cluster.create(nothing);

    LeaderGroup noSecret = BatonCluster.group("orders", "orders");
    noSecret.getSpec().setRedis(new RedisConnectionRef("orders-redis"));
    cluster.create(noSecret);

    cluster.createRedisSecret(
        "billing-redis", Map.of("url", "redis://127.0.0.1:1", "password", "s3cr3t-billing-pw"));
    LeaderGroup unreachable = BatonCluster.group("billing", "billing");
    unreachable.getSpec().setRedis(new RedisConnectionRef("billing-redis"));
    cluster.create(unreachable);

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              cluster
                  .assertCondition("nothing", "Ready")
                  .hasStatus("False")
                  .hasReason("NoCandidates");
              cluster
                  .assertCondition("orders", "RedisAvailable")
                  .hasStatus("False")
                  .hasReason("SecretNotFound")
                  .hasMessageContaining("Secret shop/orders-redis not found");
              cluster
                  .assertCondition("billing", "RedisAvailable")
                  .hasStatus("False")
                  .message()
                  .contains("redis://127.0.0.1:1")
                  .doesNotContain("s3cr3t-billing-pw");
            });
    assertThat(cluster.awaitLeader("payments", ROLE)).startsWith("payments-");
    assertThat(cluster.roles(ROLE)).doesNotContainKeys("orders-0", "billing-0");
    // Other groups keep working while the broken ones retry.
    cluster.client.pods().inNamespace(NS).withName(cluster.leaders(ROLE).get(0)).delete();
    await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.leaders(ROLE)).hasSize(1));
    cluster.assertCondition("payments", "Ready").hasStatus("True");

    // Once the Secret exists, the group recovers without anyone touching it.
    cluster.createRedisSecret("orders-redis", cluster.redis.url());
    await()
        .atMost(Duration.ofSeconds(40))
        .untilAsserted(
            () -> assertThat(cluster.status("orders").getLeader()).startsWith("orders-"));
    for (var e : cluster.client.v1().events().inNamespace(NS).list().getItems()) {
      assertThat(e.getMessage()).doesNotContain("s3cr3t-billing-pw");
    }
  }

  @Test
  void invalidSpecIsReportedWithAClearMessage() {
    cluster.createPods("payments", 3);
    cluster.startOperator();
    LeaderGroup bad = BatonCluster.group("payments", "payments");
    bad.getSpec().getLease().setRenewInterval("5s");
    cluster.create(bad);
    cluster.awaitCondition(
        "payments",
        "Invalid",
        c -> c.hasStatus("True").hasMessageContaining("renewInterval (5s) must be shorter than"));
    assertThat(cluster.roles(ROLE)).isEmpty();
  }
}
