package dev.baton.operator.routing;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Event;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * spec.failoverDelay (docs/design.md, "Flap damping"): a leader that turned not ready keeps
 * leadership for the delay and then loses it, one ready again within the delay stays leader, and a
 * deleted one is replaced at once whatever the delay. The test's EndpointSlice controller runs, as
 * in every routing test.
 */
class FailoverDelayIT extends RoutingTest {

  /** Three pods, the operator and the group with this failover delay: its leader. */
  private String startDamped(String delay) {
    payments.createPods(3);
    cluster.startOperator();
    LeaderGroup g = Sandbox.group("payments", "payments");
    g.getSpec().setFailoverDelay(delay);
    cluster.create(g);
    return cluster.awaitLeader("payments", ROLE);
  }

  @Test
  void failoverDelayKeepsANotReadyLeaderForTheDelayThenMoves() {
    String leader = startDamped("3s");
    long term = cluster.status("payments").getTerm();

    cluster.setReady(leader, false);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              var pending = cluster.status("payments").getPendingFailover();
              assertThat(pending).isNotNull();
              assertThat(pending.getPod()).isEqualTo(leader);
              assertThat(pending.getFailoverAt()).isNotEmpty();
              assertThat(cluster.condition("payments", "Ready").get().getReason())
                  .isEqualTo("FailoverPending");
            });
    assertThat(cluster.events("payments"))
        .anySatisfy(
            e -> {
              assertThat(e.getReason()).isEqualTo("FailoverPending");
              assertThat(e.getMessage()).contains(leader, "spec.failoverDelay");
            });
    // Held: 1.5 s into the 3 s delay the leader and its term are unchanged.
    await()
        .during(Duration.ofMillis(1500))
        .atMost(Duration.ofSeconds(3))
        .untilAsserted(
            () -> {
              assertThat(cluster.leaders(ROLE)).containsExactly(leader);
              assertThat(cluster.status("payments").getTerm()).isEqualTo(term);
            });
    // Then it moves.
    await()
        .atMost(WAIT)
        .until(() -> !cluster.leaders(ROLE).isEmpty() && !cluster.leaders(ROLE).contains(leader));
    cluster.awaitLeader("payments", ROLE);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(cluster.status("payments").getPendingFailover()).isNull();
              assertThat(cluster.status("payments").getTerm()).isGreaterThan(term);
            });
  }

  @Test
  void aLeaderReadyAgainWithinTheDelayStaysLeader() {
    String leader = startDamped("30s");
    long term = cluster.status("payments").getTerm();
    for (int flap = 0; flap < 3; flap++) {
      cluster.setReady(leader, false);
      await().atMost(WAIT).until(() -> cluster.status("payments").getPendingFailover() != null);
      cluster.setReady(leader, true);
      await().atMost(WAIT).until(() -> cluster.status("payments").getPendingFailover() == null);
    }
    assertThat(cluster.leaders(ROLE)).containsExactly(leader);
    assertThat(cluster.status("payments").getTerm()).isEqualTo(term);
    await().atMost(WAIT).until(() -> cluster.eventReasons("payments").contains("FailoverAverted"));
    assertThat(cluster.condition("payments", "Ready").get().getStatus()).isEqualTo("True");
  }

  @Test
  void deletionMovesLeadershipAtOnceWhateverTheDelay() {
    String leader = startDamped("1h");
    cluster.deletePod(leader);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !cluster.leaders(ROLE).isEmpty() && !cluster.leaders(ROLE).contains(leader));
    assertThat(cluster.eventReasons("payments")).doesNotContain("FailoverPending");
    List<Event> deleted =
        cluster.events("payments").stream()
            .filter(e -> e.getReason().equals("LeaderDeleted"))
            .toList();
    assertThat(deleted).isNotEmpty();
  }
}
