package dev.baton.operator.redislock;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** How long a lock's holder has been known dead while still holding it. */
class DeadHolderTest {

  @Test
  void countsFromWhenTheHolderWasFirstSeenDeadAndResetsWhenItChangesOrLives() {
    LockReport.DeadHolder d = LockReport.DeadHolder.NONE;

    assertThat(look(d = d.next("pod:shop/a/1:x", false, 1_000), 1_000)).isZero();
    assertThat(look(d = d.next("pod:shop/a/1:x", true, 2_000), 2_000)).isZero();
    assertThat(look(d = d.next("pod:shop/a/1:x", true, 32_500), 32_500)).isEqualTo(30_500);
    assertThat(look(d = d.next("pod:shop/b/2:y", true, 40_000), 40_000))
        .as("another dead holder starts its own count")
        .isZero();
    assertThat(look(d = d.next(null, false, 41_000), 41_000)).as("the lock is free").isZero();
    assertThat(look(d.next("pod:shop/b/2:y", true, 50_000), 50_000)).isZero();
  }

  private static long look(LockReport.DeadHolder d, long now) {
    return d.millis(now);
  }
}
