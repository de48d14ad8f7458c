package dev.baton.operator.leadergroup;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.operator.testing.BatonCluster;
import dev.baton.testkit.RoleWatcher;
import dev.baton.testkit.Sandbox;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** A leader's node turning NotReady or Unknown moves leadership before the pod notices. */
class NodeLossIT {

  @Test
  void leaderMovesOffANodeThatTurnsUnknownAndStaysMovedWhenItReturns() {
    try (BatonCluster cluster = new BatonCluster();
        RoleWatcher watcher = new RoleWatcher(cluster.client, NS, ROLE)) {
      cluster.createPodsOnNodes("payments", 3);
      cluster.startOperator();
      cluster.create(Sandbox.group("payments", "payments"));
      String leader = cluster.awaitLeader("payments", ROLE);
      String leaderNode = cluster.pod(leader).getSpec().getNodeName();

      cluster.setNodeReady(leaderNode, "Unknown");

      await()
          .atMost(WAIT)
          .untilAsserted(() -> assertThat(cluster.leaders(ROLE)).hasSize(1).doesNotContain(leader));
      assertThat(cluster.pod(leader).getStatus().getConditions())
          .as("the pod itself still says Ready")
          .anyMatch(c -> c.getStatus().equals("True"));
      String next = cluster.awaitLeader("payments", ROLE);
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> assertThat(cluster.eventReasons("payments")).contains("LeaderNodeLost"));

      cluster.setNodeReady(leaderNode, "True");
      // Seen by the operator: the pod on the returned node is a candidate again.
      cluster.awaitCandidates("payments", 3);
      await()
          .during(Duration.ofSeconds(1))
          .atMost(WAIT)
          .untilAsserted(() -> assertThat(cluster.leaders(ROLE)).containsExactly(next));
      assertThat(watcher.violations()).isEmpty();
    }
  }
}
