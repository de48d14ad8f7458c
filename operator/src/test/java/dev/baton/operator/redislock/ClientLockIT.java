package dev.baton.operator.redislock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.client.BatonLock;
import dev.baton.client.BatonLocks;
import dev.baton.client.LockKeys;
import dev.baton.client.LockLease;
import dev.baton.client.LockOwner;
import dev.baton.client.LockStore;
import dev.baton.testkit.LocalRedis;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** The client module's lock against a real redis-server: exclusion, tokens, compare-and-delete. */
class ClientLockIT {

  private static LocalRedis redis;
  private static RedissonClient redisson;

  @BeforeAll
  static void start() {
    redis = LocalRedis.start();
    redisson = TestRedisson.connect(redis);
  }

  @AfterAll
  static void stop() {
    redisson.shutdown();
    redis.close();
  }

  /** A lock with tokens reserved, as the operator reserves them for a RedisLock. */
  private static BatonLock lock(String key, String pod, Duration ttl) {
    LockStore.single(redisson).reserve(new LockKeys(key), 0, 1_000_000);
    return BatonLocks.singleRedis(redisson, LockOwner.pod("shop", pod, pod + "-uid"))
        .lock(key, ttl);
  }

  @Test
  void twoContendersOneWinsAndTheLoserGetsItOnlyAfterReleaseOrExpiryWithAGreaterToken() {
    BatonLock a = lock("shop/contended", "app-a", Duration.ofSeconds(1));
    BatonLock b = lock("shop/contended", "app-b", Duration.ofSeconds(1));

    LockLease first = a.tryAcquire().orElseThrow();
    assertThat(b.tryAcquire()).isEmpty();
    assertThat(b.tryAcquire(Duration.ofMillis(300))).as("held for its ttl of 1s").isEmpty();
    assertThat(b.holder()).contains("shop/app-a");
    assertThat(redis.command("GET", new LockKeys("shop/contended").lock()))
        .contains("pod:shop/app-a/app-a-uid:");

    assertThat(first.release()).isTrue();
    LockLease second = b.tryAcquire().orElseThrow();
    long secondAt = System.nanoTime();
    assertThat(second.token()).isGreaterThan(first.token());

    // The second holder never renews: the first gets the lock back once Redis expires it.
    LockLease third = a.tryAcquire(Duration.ofSeconds(5)).orElseThrow();
    long waitedMillis = (System.nanoTime() - secondAt) / 1_000_000;
    assertThat(waitedMillis).as("acquired only after the 1s ttl ran out").isGreaterThan(900);
    assertThat(third.token()).isGreaterThan(second.token());
    assertThat(second.renew())
        .as("an expired hold that someone else took is not renewed")
        .isFalse();
    assertThat(third.renew()).isTrue();
    third.release();
  }

  @Test
  void releaseWithAStaleValueAfterExpiryAndReacquireDeletesNothing() {
    LockKeys keys = new LockKeys("shop/stale");
    BatonLock a = lock(keys.key(), "app-a", Duration.ofMillis(300));
    BatonLock b = lock(keys.key(), "app-b", Duration.ofSeconds(5));
    LockLease stale = a.tryAcquire().orElseThrow();
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(20))
        .until(() -> redis.command("EXISTS", keys.lock()).equals(":0"));
    LockLease current = b.tryAcquire().orElseThrow();
    String token = redis.command("GET", keys.token());

    assertThat(stale.renew()).isFalse();
    assertThat(stale.release())
        .as("compare-and-delete with a value that no longer holds it")
        .isFalse();
    assertThat(LockStore.single(redisson).release(keys, stale.value()).ok()).isFalse();

    assertThat(redis.command("GET", keys.lock())).contains(current.value());
    assertThat(redis.command("GET", keys.token()))
        .as("a refused release changes no counter")
        .isEqualTo(token);
    assertThat(current.renew()).isTrue();
    assertThat(current.token()).isGreaterThan(stale.token());
    assertThat(current.release()).isTrue();
    assertThat(redis.command("EXISTS", keys.lock())).isEqualTo(":0");
  }

  @Test
  void uncontendedAcquireAndReleaseAreOneRoundTripEach() {
    BatonLock a = lock("shop/latency", "app-a", Duration.ofSeconds(5));
    long[] micros = new long[500];
    for (int i = 0; i < micros.length; i++) {
      long start = System.nanoTime();
      LockLease lease = a.tryAcquire().orElseThrow();
      micros[i] = (System.nanoTime() - start) / 1_000;
      assertThat(lease.release()).isTrue();
    }
    java.util.Arrays.sort(micros);
    // A figure for the notes, not a timed assertion: one script call on a local redis-server.
    System.out.println(
        "uncontended acquire latency: p50 "
            + micros[micros.length / 2]
            + " us, p99 "
            + micros[micros.length * 99 / 100]
            + " us");
    assertThat(a.highestToken()).isGreaterThanOrEqualTo(micros.length);
  }

  @Test
  void aReleasedHoldCannotBeRenewedBackEvenWhileTheLockIsFree() {
    LockKeys keys = new LockKeys("shop/released");
    BatonLock a = lock(keys.key(), "app-a", Duration.ofSeconds(5));
    LockLease lease = a.tryAcquire().orElseThrow();
    LockStore store = LockStore.single(redisson);
    // What the operator's reaping or force-release does: compare-and-delete on the value read.
    assertThat(store.release(keys, lease.value()).ok()).isTrue();
    assertThat(lease.renew())
        .as("a renew after someone released the lock takes nothing back")
        .isFalse();
    assertThat(redis.command("EXISTS", keys.lock())).isEqualTo(":0");
  }
}
