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
import io.fabric8.kubernetes.api.model.SecretBuilder;
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

      await()
          .atMost(WAIT)
          .untilAsserted(
              () ->
                  assertThat(cluster.condition("payments-copy", "Conflict"))
                      .get()
                      .satisfies(
                          c -> {
                            assertThat(c.getStatus()).isEqualTo("True");
                            assertThat(c.getMessage()).contains("LeaderGroup payments");
                          }));
      await()
          .during(Duration.ofSeconds(1))
          .atMost(WAIT)
          .untilAsserted(() -> assertThat(cluster.roles(ROLE)).isEqualTo(roles));
      assertThat(watcher.history()).hasSize(seen);
      assertThat(cluster.status("payments-copy").getLeader()).isEmpty();
      assertThat(cluster.condition("payments", "Conflict"))
          .get()
          .extracting(c -> c.getStatus())
          .isEqualTo("False");
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

    cluster
        .client
        .secrets()
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("billing-redis")
                .withNamespace(NS)
                .endMetadata()
                .addToStringData("url", "redis://127.0.0.1:1")
                .addToStringData("password", "s3cr3t-billing-pw")
                .build())
        .create();
    LeaderGroup unreachable = BatonCluster.group("billing", "billing");
    unreachable.getSpec().setRedis(new RedisConnectionRef("billing-redis"));
    cluster.create(unreachable);

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(cluster.condition("nothing", "Ready"))
                  .get()
                  .satisfies(
                      c -> {
                        assertThat(c.getStatus()).isEqualTo("False");
                        assertThat(c.getReason()).isEqualTo("NoCandidates");
                      });
              assertThat(cluster.condition("orders", "RedisAvailable"))
                  .get()
                  .satisfies(
                      c -> {
                        assertThat(c.getStatus()).isEqualTo("False");
                        assertThat(c.getReason()).isEqualTo("SecretNotFound");
                        assertThat(c.getMessage()).contains("Secret shop/orders-redis not found");
                      });
              assertThat(cluster.condition("billing", "RedisAvailable"))
                  .get()
                  .satisfies(
                      c -> {
                        assertThat(c.getStatus()).isEqualTo("False");
                        assertThat(c.getMessage())
                            .contains("redis://127.0.0.1:1")
                            .doesNotContain("s3cr3t-billing-pw");
                      });
            });
    assertThat(cluster.awaitLeader("payments", ROLE)).startsWith("payments-");
    assertThat(cluster.roles(ROLE)).doesNotContainKeys("orders-0", "billing-0");
    // Other groups keep working while the broken ones retry.
    cluster.client.pods().inNamespace(NS).withName(cluster.leaders(ROLE).get(0)).delete();
    await().atMost(WAIT).untilAsserted(() -> assertThat(cluster.leaders(ROLE)).hasSize(1));
    assertThat(cluster.condition("payments", "Ready"))
        .get()
        .extracting(c -> c.getStatus())
        .isEqualTo("True");

    // Once the Secret exists, the group recovers without anyone touching it.
    cluster
        .client
        .secrets()
        .resource(
            new SecretBuilder()
                .withNewMetadata()
                .withName("orders-redis")
                .withNamespace(NS)
                .endMetadata()
                .addToStringData("url", cluster.redis.url())
                .build())
        .create();
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
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(cluster.condition("payments", "Invalid"))
                    .get()
                    .satisfies(
                        c -> {
                          assertThat(c.getStatus()).isEqualTo("True");
                          assertThat(c.getMessage())
                              .contains("renewInterval (5s) must be shorter than");
                        }));
    assertThat(cluster.roles(ROLE)).isEmpty();
  }
}
