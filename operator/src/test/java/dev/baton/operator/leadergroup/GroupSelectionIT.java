package dev.baton.operator.leadergroup;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.ClusterTest;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pod events reach the groups that select the pod through the group index (docs/design.md, "A cache
 * the size of what matters"): whatever label a group's selector names first, and with no
 * matchLabels at all.
 */
class GroupSelectionIT extends ClusterTest {

  private void pod(String name, Map<String, String> labels) {
    cluster.createPod(Sandbox.readyPod(NS, name, labels));
  }

  @Test
  void aGroupSelectingOnlyByExpressionSeesPodsCreatedAfterItAndFailsOver() {
    cluster.startOperator();
    LeaderGroup g = BatonCluster.group("payments", "payments");
    g.getSpec()
        .setSelector(
            new LabelSelectorBuilder()
                .addNewMatchExpression()
                .withKey("app")
                .withOperator("In")
                .withValues("payments", "payments-canary")
                .endMatchExpression()
                .build());
    cluster.create(g);
    pod("payments-0", Map.of("app", "payments"));
    pod("payments-1", Map.of("app", "payments-canary"));
    pod("other-0", Map.of("app", "other"));

    String leader = cluster.awaitLeader("payments", ROLE);
    await().atMost(WAIT).until(() -> cluster.roles(ROLE).size() == 2);
    assertThat(cluster.roles(ROLE)).containsOnlyKeys("payments-0", "payments-1");

    cluster.deletePod(leader);
    await()
        .atMost(WAIT)
        .until(() -> cluster.leaders(ROLE).size() == 1 && !cluster.leaders(ROLE).contains(leader));
  }

  @Test
  void anOlderGroupWhoseSelectorNamesAnotherLabelFirstStillClaimsThePods() {
    for (int i = 0; i < 2; i++) {
      pod("db-" + i, Map.of("app", "db", "tier", "primary"));
    }
    cluster.startOperator();
    // Seniority is the creation time, in seconds, then the name: "a-tier" is older either way.
    LeaderGroup older = BatonCluster.group("a-tier", "db");
    older
        .getSpec()
        .setSelector(new LabelSelectorBuilder().withMatchLabels(Map.of("tier", "primary")).build());
    cluster.create(older);
    String leader = cluster.awaitLeader("a-tier", ROLE);

    cluster.create(BatonCluster.group("b-app", "db"));
    cluster.awaitCondition(
        "b-app", "Conflict", c -> c.hasStatus("True").hasMessageContaining("LeaderGroup a-tier"));
    assertThat(cluster.leaders(ROLE)).containsExactly(leader);
    assertThat(cluster.pod(leader).getMetadata().getAnnotations())
        .containsEntry("baton.dev/leader-group", "a-tier");
  }
}
