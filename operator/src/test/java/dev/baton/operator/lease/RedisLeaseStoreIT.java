package dev.baton.operator.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.operator.demo.LocalRedis;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The lease scripts against a real redis-server. */
class RedisLeaseStoreIT {

  private static LocalRedis redis;
  private static RedisConnections connections;
  private static LeaseStore store;

  @BeforeAll
  static void start() {
    redis = LocalRedis.start();
    connections = new RedisConnections(RedisLeaseStore.ScriptTimer.NONE, Duration.ofMillis(500));
    store = connections.leaseStore(new RedisSettings(redis.url(), null, null));
  }

  @AfterAll
  static void stop() {
    connections.close();
    redis.close();
  }

  private static LeaseKeys keys(String name) {
    return new LeaseKeys("test/" + name);
  }

  @Test
  void acquiresAFreeLeaseOnlyOnceAndIncrementsTheTerm() {
    LeaseKeys k = keys("free");
    var first = store.acquire(k, "", "c|ns|a|ua", 10_000, 0);
    assertThat(first.acquired()).isTrue();
    assertThat(first.term()).isEqualTo(1);
    assertThat(first.holder()).isEqualTo("c|ns|a|ua|1");
    var second = store.acquire(k, "", "c|ns|b|ub", 10_000, 0);
    assertThat(second.acquired()).isFalse();
    assertThat(second.holder()).isEqualTo("c|ns|a|ua|1");
    assertThat(redis.command("PTTL", k.holder())).matches(":\\d+");
  }

  @Test
  void takesOverOnlyFromTheExpectedHolder() {
    LeaseKeys k = keys("takeover");
    var a = store.acquire(k, "", "c|ns|a|ua", 10_000, 0);
    assertThat(store.acquire(k, "c|ns|x|ux|1", "c|ns|b|ub", 10_000, 0).acquired()).isFalse();
    var b = store.acquire(k, a.holder(), "c|ns|b|ub", 10_000, 0);
    assertThat(b.acquired()).isTrue();
    assertThat(b.term()).isEqualTo(a.term() + 1);
  }

  @Test
  void termFloorKeepsTermsGrowingAfterDataLoss() {
    LeaseKeys k = keys("floor");
    var got = store.acquire(k, "", "c|ns|a|ua", 10_000, 41);
    assertThat(got.term()).isEqualTo(42);
    // A floor below the counter changes nothing.
    store.release(k, got.holder());
    assertThat(store.acquire(k, "", "c|ns|a|ua", 10_000, 5).term()).isEqualTo(43);
  }

  @Test
  void renewsOnlyForTheOwnerAndReportsTheHolderOtherwise() {
    LeaseKeys k = keys("renew");
    var a = store.acquire(k, "", "c|ns|a|ua", 1_000, 0);
    var renewed = store.renew(k, a.holder(), 60_000);
    assertThat(renewed.renewed()).isTrue();
    assertThat(Long.parseLong(redis.command("PTTL", k.holder()).substring(1)))
        .isGreaterThan(50_000);
    var notOwner = store.renew(k, "c|ns|b|ub|9", 60_000);
    assertThat(notOwner.renewed()).isFalse();
    assertThat(notOwner.holder()).isEqualTo(a.holder());
    assertThat(store.renew(keys("nobody"), "c|ns|b|ub|9", 1_000).holder()).isNull();
  }

  @Test
  void releasesOnlyForTheOwner() {
    LeaseKeys k = keys("release");
    var a = store.acquire(k, "", "c|ns|a|ua", 10_000, 0);
    assertThat(store.release(k, "c|ns|a|ua|999")).isFalse();
    assertThat(store.observe(k).holder()).isEqualTo(a.holder());
    assertThat(store.release(k, a.holder())).isTrue();
    var seen = store.observe(k);
    assertThat(seen.holder()).isNull();
    assertThat(seen.term()).isEqualTo(a.term());
  }

  @Test
  void keysShareOneHashTagSoScriptsWorkOnRedisCluster() {
    LeaseKeys k = keys("slot");
    assertThat(redis.command("CLUSTER", "KEYSLOT", k.holder()))
        .isEqualTo(redis.command("CLUSTER", "KEYSLOT", k.term()));
  }

  @Test
  void anUnreachableRedisIsReportedWithoutCredentials() {
    RedisSettings nowhere = new RedisSettings("redis://127.0.0.1:1", "u", "top-secret-pw");
    assertThatThrownBy(() -> connections.leaseStore(nowhere))
        .isInstanceOf(RedisUnavailableException.class)
        .hasMessageContaining("redis://127.0.0.1:1")
        .hasMessageNotContaining("top-secret-pw");
  }
}
