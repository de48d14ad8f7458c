package dev.baton.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** /healthz on a controlled clock: idle is alive, a reconcile that stopped coming is not. */
class LivenessTest {

  private final AtomicLong now = new AtomicLong(1_000_000_000L);
  private final Liveness liveness = new Liveness(now::get);

  private void pass(Duration d) {
    now.addAndGet(d.toNanos());
  }

  @Test
  void anOperatorWithNothingToDoStaysAliveForAnHour() {
    pass(Duration.ofHours(1));

    assertThat(liveness.check().ok()).isTrue();
  }

  @Test
  void groupsDeletedThenNothingToDoForAnHourIsStillAlive() {
    liveness.progressed("LeaderGroup shop/a", Duration.ofMinutes(10));
    liveness.progressed("LeaderGroup shop/b", Duration.ofSeconds(3));
    pass(Duration.ofSeconds(2));
    liveness.forget("LeaderGroup shop/a");
    liveness.forget("LeaderGroup shop/b");

    pass(Duration.ofHours(1));

    assertThat(liveness.check().ok()).as(liveness.check().detail()).isTrue();
  }

  @Test
  void aReconcileOverdueByFourIntervalsAndAMinuteIsStuck() {
    liveness.progressed("LeaderGroup shop/quiet", Duration.ofMinutes(10));
    liveness.progressed("LeaderGroup shop/busy", Duration.ofSeconds(3));

    pass(Duration.ofSeconds(62));
    assertThat(liveness.check().ok()).as("within the minute of grace").isTrue();

    pass(Duration.ofSeconds(2));
    HttpEndpoints.Check stuck = liveness.check();
    assertThat(stuck.ok()).isFalse();
    assertThat(stuck.detail()).contains("LeaderGroup shop/busy").contains("61 s ago");
  }

  @Test
  void aQuietGroupIsNotStuckWithinFourOfItsResyncIntervals() {
    liveness.progressed("LeaderGroup shop/quiet", Duration.ofMinutes(10));

    pass(Duration.ofMinutes(49));
    assertThat(liveness.check().ok()).isTrue();

    pass(Duration.ofMinutes(2));
    assertThat(liveness.check().ok()).isFalse();
  }

  @Test
  void eachReconcileMovesItsResourcesDeadline() {
    liveness.progressed("RedisLock shop/l", Duration.ofSeconds(5));
    for (int i = 0; i < 60; i++) {
      pass(Duration.ofSeconds(5));
      liveness.progressed("RedisLock shop/l", Duration.ofSeconds(5));
    }

    assertThat(liveness.check().ok()).isTrue();
  }

  @Test
  void nothingDueUntilAnEventIsNotExpected() {
    liveness.progressed("RedisLock shop/l", Duration.ofSeconds(5));
    liveness.progressed("RedisLock shop/l", null);

    pass(Duration.ofHours(1));

    assertThat(liveness.check().ok()).isTrue();
  }
}
