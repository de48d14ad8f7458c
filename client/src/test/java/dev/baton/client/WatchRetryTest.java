package dev.baton.client;

import static dev.baton.client.BatonLeadership.WatchState.BROKEN;
import static dev.baton.client.BatonLeadership.WatchState.OPEN;
import static dev.baton.client.BatonLeadership.WatchState.OPENING;
import static dev.baton.client.BatonLeadership.WatchState.REFUSED;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** When a failed pod watch is asked for again, and how often the pod is read meanwhile. */
class WatchRetryTest {

  private static final Duration CONFIRM_EVERY = Duration.ofMillis(500);

  @Test
  void aFailedWatchIsAskedForAgainWithin100MsThenLaterAndLaterUpToACap() {
    assertThat(WatchRetry.after(1, BROKEN)).isLessThanOrEqualTo(Duration.ofMillis(100));
    assertThat(WatchRetry.after(1, REFUSED)).isLessThanOrEqualTo(Duration.ofMillis(100));
    for (int n = 1; n < 40; n++) {
      assertThat(WatchRetry.after(n + 1, BROKEN))
          .isGreaterThanOrEqualTo(WatchRetry.after(n, BROKEN));
    }
    assertThat(WatchRetry.after(2, BROKEN)).isEqualTo(WatchRetry.after(1, BROKEN).multipliedBy(2));
    assertThat(WatchRetry.after(40, BROKEN)).isEqualTo(Duration.ofSeconds(5));
    assertThat(WatchRetry.after(40, REFUSED)).isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void whileTheWatchIsNotOpenForWantOfAnAnswerThePodIsReadOftenEnoughToSeeAPromotionIn100Ms() {
    // A read's round trip is under 25 ms 97 % of the time on a real API server.
    assertThat(WatchRetry.readEvery(OPENING, CONFIRM_EVERY).plusMillis(25))
        .isLessThanOrEqualTo(Duration.ofMillis(100));
    assertThat(WatchRetry.readEvery(BROKEN, CONFIRM_EVERY)).isEqualTo(Duration.ofMillis(70));
    assertThat(WatchRetry.readEvery(OPEN, CONFIRM_EVERY)).isEqualTo(CONFIRM_EVERY);
    // A server that answered with a refusal is not read faster.
    assertThat(WatchRetry.readEvery(REFUSED, CONFIRM_EVERY)).isEqualTo(CONFIRM_EVERY);
    // Reads already more frequent stay so.
    assertThat(WatchRetry.readEvery(BROKEN, Duration.ofMillis(20)))
        .isEqualTo(Duration.ofMillis(20));
  }
}
