package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A redis-server whose wall clock the test steps, and whose expiries follow it. */
class SteppedClockTest {

  private static long redisMillis(LocalRedis redis) {
    String[] lines = redis.command("TIME").split("\r?\n");
    // *2, $len, seconds, $len, microseconds
    return Long.parseLong(lines[2].trim()) * 1000 + Long.parseLong(lines[4].trim()) / 1000;
  }

  @Test
  void aStepMovesTimeAndExpiriesButNotTheMonotonicClock() {
    try (SteppedClock clock = new SteppedClock();
        LocalRedis redis = LocalRedis.start(clock.environment())) {
      long before = redisMillis(redis);
      long wall = System.currentTimeMillis();
      assertThat(Math.abs(before - wall)).isLessThan(1000);
      redis.command("SET", "k", "v", "PX", "2000");

      clock.step(2500);
      long after = redisMillis(redis);
      assertThat(after - before).isBetween(2500L, 3500L);
      assertThat(redis.command("GET", "k")).as("expired by the stepped clock").startsWith("$-1");

      clock.step(-2500);
      assertThat(Math.abs(redisMillis(redis) - System.currentTimeMillis())).isLessThan(1000);
    }
  }
}
