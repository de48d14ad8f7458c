package dev.baton.operator.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.client.ElectionKeys;
import dev.baton.testkit.LocalRedis;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Batched renewals against a real redis-server. */
class LeaseRenewerIT {

  private static final int LEASES = 200;

  private static long scriptCalls(LocalRedis redis) {
    String stats = redis.command("INFO", "commandstats");
    long calls = 0;
    Matcher m = Pattern.compile("cmdstat_(eval|evalsha):calls=(\\d+)").matcher(stats);
    while (m.find()) {
      calls += Long.parseLong(m.group(2));
    }
    return calls;
  }

  @Test
  void renewsManyLeasesInFewScriptCallsAndReportsOnlyTheLostOne() throws Exception {
    List<LeaseRenewer.Event<String>> events = new CopyOnWriteArrayList<>();
    try (LocalRedis redis = LocalRedis.start();
        RedisConnections connections =
            new RedisConnections(RedisLeaseStore.ScriptTimer.NONE, Duration.ofMillis(500));
        LeaseRenewer<String> renewer = new LeaseRenewer<>(events::add, () -> true)) {
      LeaseStore store = connections.leaseStore(new RedisSettings(redis.url(), null, null));
      for (int i = 0; i < LEASES; i++) {
        ElectionKeys keys = new ElectionKeys("renew/" + i);
        store.reserve(keys, 0, 100);
        var got = store.acquire(keys, "", "c|ns|p" + i + "|u" + i, 1_000);
        renewer.hold(
            "g" + i, store, keys, got.holder(), Duration.ofSeconds(1), Duration.ofMillis(300));
      }
      long before = scriptCalls(redis);
      long start = System.nanoTime();
      // Three ttls long: without renewals every lease would have expired twice over.
      await().pollDelay(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5)).until(() -> true);
      long seconds = Math.max(1, (System.nanoTime() - start) / 1_000_000_000L);
      long calls = scriptCalls(redis) - before;

      for (int i = 0; i < LEASES; i++) {
        assertThat(redis.command("EXISTS", new ElectionKeys("renew/" + i).holder()))
            .as("lease %d still held", i)
            .isEqualTo(":1");
      }
      assertThat(events).isEmpty();
      // One-by-one renewal every 300 ms would take LEASES * 10 = 2000 calls in 3 s.
      assertThat(calls)
          .as("script calls in %d s for %d leases", seconds, LEASES)
          .isLessThan(LEASES);
      System.out.printf(
          "batched renewals: %d leases, %d script calls in %d s%n", LEASES, calls, seconds);

      redis.command("DEL", new ElectionKeys("renew/7").holder());
      await().atMost(Duration.ofSeconds(5)).until(() -> !events.isEmpty());
      assertThat(events).containsExactly(new LeaseRenewer.Event<>("g7", LeaseRenewer.Outcome.LOST));
      assertThat(renewer.record("g7")).isNull();

      events.clear();
      redis.kill();
      await().atMost(Duration.ofSeconds(5)).until(() -> events.size() == LEASES - 1);
      assertThat(events).allMatch(e -> e.outcome() == LeaseRenewer.Outcome.UNREACHABLE);
      assertThat(renewer.fresh("g1", renewer.record("g1"))).isFalse();
    }
  }
}
