package dev.baton.operator.leadergroup;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.ClusterTest;
import io.fabric8.kubernetes.api.model.Event;
import org.junit.jupiter.api.Test;

/**
 * A new group whose pods are still starting is waiting, not failing: on a real node every new group
 * warned NoCandidates before its pods were Ready.
 */
class StartingGroupIT extends ClusterTest {

  @Test
  void aNewGroupWaitsForItsPodsWithoutAWarningAndWarnsWhenItLosesEveryCandidate() {
    for (int i = 0; i < 2; i++) {
      cluster.createPod("payments-" + i, "payments");
      cluster.setReady("payments-" + i, false);
    }
    cluster.startOperator();
    cluster.create(BatonCluster.group("payments", "payments"));
    cluster.awaitCondition(
        "payments",
        "Ready",
        c ->
            c.hasStatus("False")
                .hasReason("WaitingForCandidates")
                .hasMessageContaining("2 pods selected, none ready yet"));
    assertThat(cluster.events("payments"))
        .extracting(Event::getReason, Event::getType)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("WaitingForCandidates", "Normal"));

    cluster.setReady("payments-1", true);
    String leader = cluster.awaitLeader("payments", ROLE);
    assertThat(leader).isEqualTo("payments-1");

    cluster.setReady("payments-1", false);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(cluster.events("payments"))
                    .extracting(Event::getReason, Event::getType)
                    .contains(org.assertj.core.groups.Tuple.tuple("NoCandidates", "Warning")));
    assertThat(cluster.condition("payments", "Ready").orElseThrow().getReason())
        .isEqualTo("NoCandidates");
  }
}
