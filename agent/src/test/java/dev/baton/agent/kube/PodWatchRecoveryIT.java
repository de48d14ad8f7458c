package dev.baton.agent.kube;

import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.client.BatonLeadership;
import dev.baton.client.BatonNames;
import dev.baton.testkit.EmbeddedKubernetes;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pod watch when it fails to open, as a new pod's first connection to a real API server can
 * time out (the test kit cuts the first watch requests before an answer): asked for again soon,
 * then later and later; meanwhile the pod is read often enough that a promotion is learned without
 * it; once it opens, news arrives through it again. Reads are otherwise a minute apart, so whatever
 * is learned sooner came through the frequent reads or the watch.
 */
class PodWatchRecoveryIT {

  @Test
  void aWatchThatFailsToOpenIsAskedForAgainAndAPromotionIsLearnedByReadsMeanwhile() {
    try (EmbeddedKubernetes api = EmbeddedKubernetes.start()) {
      api.dropWatches("pods", 1_000);
      FollowedPod.create(api, BatonNames.FOLLOWER, null);
      try (BatonLeadership leadership = FollowedPod.follow(api, Duration.ofMinutes(1))) {
        List<String> heard = FollowedPod.heard(leadership);
        await().atMost(WAIT).until(() -> api.droppedWatches("pods").size() >= 5);
        assertThat(leadership.watchState()).isEqualTo(BatonLeadership.WatchState.BROKEN);
        assertThat(leadership.watching()).isFalse();
        assertThat(leadership.watchFailures()).isGreaterThanOrEqualTo(4);
        List<Long> asked = api.droppedWatches("pods");
        // Retried within 100 ms, then later and later: the fifth request waited the fourth
        // back-off, 400 ms (timers never fire early; the first waits are not timed here).
        assertThat(asked.get(4) - asked.get(3))
            .as("the wait before the fifth watch")
            .isGreaterThanOrEqualTo(Duration.ofMillis(380).toNanos());

        FollowedPod.label(api, "leader", "7");
        // The next read at the usual pace is a minute away: the frequent reads tell it.
        await().atMost(WAIT).until(() -> heard.contains("granted 7"));
        assertThat(leadership.watching()).isFalse();

        api.dropWatches("pods", 0);
        await().atMost(WAIT).until(leadership::watching);
        assertThat(leadership.watchState()).isEqualTo(BatonLeadership.WatchState.OPEN);
        FollowedPod.label(api, "follower", null);
        await().atMost(WAIT).until(() -> heard.contains("revoked"));
      }
    }
  }
}
