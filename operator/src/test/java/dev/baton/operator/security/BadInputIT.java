package dev.baton.operator.security;

import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import org.junit.jupiter.api.Test;

/**
 * The two most dangerous bad specs, end to end (the whole list is {@link BadInputTest}): a group
 * whose empty selector would take every pod of the namespace, and one whose role label is the label
 * it selects on. Both end in Invalid=True with a clear message and touch no pod, while a good group
 * beside them elects as usual.
 */
class BadInputIT {

  private static final String ROLE = BatonCluster.ROLE;

  @Test
  void aSelectorOfEveryPodOrARoleLabelItSelectsOnIsInvalidAndLabelsNothing() {
    try (BatonCluster cluster = new BatonCluster()) {
      for (int i = 0; i < 2; i++) {
        cluster.createPod("payments-" + i, "payments");
        cluster.createPod("orders-" + i, "orders");
      }
      cluster.startOperator();
      LeaderGroup everything = Sandbox.group("everything", "ignored");
      everything.getSpec().setSelector(new LabelSelector());
      everything.getSpec().setRoleLabel("everything.example.com/role");
      cluster.create(everything);
      LeaderGroup selfish = Sandbox.group("selfish", "orders");
      selfish.getSpec().setRoleLabel("app");
      cluster.create(selfish);
      cluster.create(Sandbox.group("payments", "payments"));

      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                cluster
                    .assertCondition("everything", "Invalid")
                    .as(cluster.describe("everything", ROLE))
                    .hasStatus("True")
                    .hasMessageContaining(
                        "spec.selector must not be empty: an empty"
                            + " selector selects every pod in the namespace");
                cluster
                    .assertCondition("selfish", "Invalid")
                    .as(cluster.describe("selfish", ROLE))
                    .hasStatus("True")
                    .hasMessageContaining(
                        "spec.roleLabel 'app' must not be a label the selector matches on");
              });
      assertThat(cluster.eventReasons("everything")).contains("InvalidSpec");
      cluster.awaitLeader("payments", ROLE);
      assertThat(cluster.roles("everything.example.com/role")).isEmpty();
      assertThat(cluster.roles("app"))
          .containsOnly(
              java.util.Map.entry("payments-0", "payments"),
              java.util.Map.entry("payments-1", "payments"),
              java.util.Map.entry("orders-0", "orders"),
              java.util.Map.entry("orders-1", "orders"));
      assertThat(cluster.roles(ROLE)).containsOnlyKeys("payments-0", "payments-1");
    }
  }

  /**
   * Objects the API server let in before the CRD refused them (or a server that skips CEL): the
   * operator refuses them too, says why, and grants nothing.
   */
  @Test
  void aLockWithAnEmptyHolderSelectorOrAnUnknownOperatorIsInvalidAndGrantsNothing() {
    try (BatonCluster cluster = new BatonCluster()) {
      cluster.createPod("batch-0", "batch");
      cluster.startOperator();
      RedisLock anyPod = BatonCluster.grantedLock("any-pod", "30s", "ignored");
      anyPod.getSpec().setHolderSelector(new LabelSelector());
      cluster.create(anyPod);
      RedisLock likes = BatonCluster.grantedLock("likes", "30s", "ignored");
      likes
          .getSpec()
          .setHolderSelector(
              new LabelSelectorBuilder()
                  .addNewMatchExpression()
                  .withKey("app")
                  .withOperator("Likes")
                  .withValues("batch")
                  .endMatchExpression()
                  .build());
      cluster.create(likes);

      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                cluster
                    .assertLockCondition("any-pod", "Invalid")
                    .as(cluster.describeLock("any-pod"))
                    .hasStatus("True")
                    .hasMessageContaining(
                        "spec.holderSelector must not be empty: an"
                            + " empty selector selects every pod in the namespace");
                cluster
                    .assertLockCondition("likes", "Invalid")
                    .as(cluster.describeLock("likes"))
                    .hasStatus("True")
                    .hasMessageContaining("unknown operator 'Likes'");
              });
      assertThat(cluster.eventReasons("any-pod")).contains("InvalidSpec");
      assertThat(cluster.pod("batch-0").getMetadata().getLabels())
          .doesNotContainKeys("locks.baton.dev/any-pod", "locks.baton.dev/likes");
    }
  }
}
