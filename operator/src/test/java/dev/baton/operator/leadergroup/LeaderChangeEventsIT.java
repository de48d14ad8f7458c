package dev.baton.operator.leadergroup;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.operator.testing.FaultClusterTest;
import io.fabric8.kubernetes.api.model.Event;
import org.junit.jupiter.api.Test;

/**
 * Every leader change is told, even by a reconcile whose later writes fail: on a real node, 8 of
 * about 50 leader changes had no Event and no log line, because a follower's label write failed
 * after the leader's had succeeded, and the next reconcile found the leader in place.
 */
class LeaderChangeEventsIT extends FaultClusterTest {

  @Test
  void aPromotionWhoseFollowerWriteFailsStillHasItsEvent() {
    String first = cluster.startGroup("payments", 3);

    // A new pod whose every write fails: each reconcile from now on stops at its follower label.
    // (Created in the same second as the others, it comes after them by name.)
    faults
        .get()
        .failAll(r -> r.getMethod().equals("PATCH") && r.getPath().endsWith("/pods/payments-late"));
    cluster.createPod("payments-late", "payments");
    cluster.deletePod(first);
    String second =
        await()
            .atMost(WAIT)
            .until(() -> cluster.leaders(ROLE), l -> l.size() == 1 && !l.contains(first))
            .get(0);

    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(cluster.events("payments"))
                    .as(cluster.describe("payments", ROLE))
                    .extracting(Event::getMessage)
                    .anySatisfy(m -> assertThat(m).startsWith(second + " leads with term 2")));
    faults.get().clear();
    await().atMost(WAIT).until(() -> "follower".equals(cluster.roles(ROLE).get("payments-late")));
    int told =
        cluster.events("payments").stream()
            .filter(e -> e.getMessage().startsWith(second + " leads"))
            .mapToInt(e -> e.getCount() == null ? 1 : e.getCount())
            .sum();
    assertThat(told).as("told once, not once per retry").isEqualTo(1);
  }
}
