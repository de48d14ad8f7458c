package dev.baton.operator.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.client.ElectionKeys;
import dev.baton.client.LockKeys;
import dev.baton.testkit.LocalRedis;
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

  private static ElectionKeys keys(String name) {
    return new ElectionKeys("test/" + name);
  }

  /** A lease key with terms reserved up to 1000, as the operator reserves them. */
  private static ElectionKeys reserved(String name) {
    ElectionKeys k = keys(name);
    store.reserve(k, 0, 1000);
    return k;
  }

  @Test
  void acquiresAFreeLeaseOnlyOnceAndIncrementsTheTerm() {
    ElectionKeys k = reserved("free");
    var first = store.acquire(k, "", "c|ns|a|ua", 10_000);
    assertThat(first.acquired()).isTrue();
    assertThat(first.term()).isEqualTo(1);
    assertThat(first.holder()).isEqualTo("c|ns|a|ua|1");
    var second = store.acquire(k, "", "c|ns|b|ub", 10_000);
    assertThat(second.acquired()).isFalse();
    assertThat(second.unreserved()).isFalse();
    assertThat(second.holder()).isEqualTo("c|ns|a|ua|1");
    assertThat(redis.command("PTTL", k.holder())).matches(":\\d+");
  }

  @Test
  void takesOverOnlyFromTheExpectedHolder() {
    ElectionKeys k = reserved("takeover");
    var a = store.acquire(k, "", "c|ns|a|ua", 10_000);
    assertThat(store.acquire(k, "c|ns|x|ux|1", "c|ns|b|ub", 10_000).acquired()).isFalse();
    var b = store.acquire(k, a.holder(), "c|ns|b|ub", 10_000);
    assertThat(b.acquired()).isTrue();
    assertThat(b.term()).isEqualTo(a.term() + 1);
  }

  @Test
  void issuesNoTermBeyondTheReservation() {
    ElectionKeys k = keys("ceiling");
    var none = store.acquire(k, "", "c|ns|a|ua", 10_000);
    assertThat(none.acquired()).isFalse();
    assertThat(none.unreserved()).isTrue();
    assertThat(none.unreservedCounter()).isZero();
    assertThat(redis.command("EXISTS", k.holder())).isEqualTo(":0");

    assertThat(store.reserve(k, 0, 2)).isEqualTo(2);
    var one = store.acquire(k, "", "c|ns|a|ua", 10_000);
    var two = store.acquire(k, one.holder(), "c|ns|b|ub", 10_000);
    assertThat(two.term()).isEqualTo(2);
    var three = store.acquire(k, two.holder(), "c|ns|a|ua", 10_000);
    assertThat(three.acquired()).isFalse();
    assertThat(three.unreservedCounter()).isEqualTo(2);
    assertThat(store.observe(k).holder()).isEqualTo(two.holder());
    // A lower ceiling never replaces the one in force; a higher one lets terms go on.
    assertThat(store.reserve(k, 0, 1)).isEqualTo(2);
    assertThat(store.reserve(k, 0, 3)).isEqualTo(3);
    assertThat(store.acquire(k, two.holder(), "c|ns|a|ua", 10_000).term()).isEqualTo(3);
  }

  @Test
  void aReservationHoldsOnlyOnTheRedisProcessThatMadeIt() {
    try (LocalRedis own = LocalRedis.start();
        RedisConnections conns =
            new RedisConnections(RedisLeaseStore.ScriptTimer.NONE, Duration.ofMillis(500))) {
      LeaseStore s = conns.leaseStore(new RedisSettings(own.url(), null, null));
      ElectionKeys k = keys("restart");
      s.reserve(k, 0, 100);
      var a = s.acquire(k, "", "c|ns|a|ua", 60_000);
      assertThat(a.term()).isEqualTo(1);
      // Restarted with its data (an RDB that may predate later increments): the counter is there,
      // but the reservation was made on another process, so nothing is issued until a new one.
      own.command("SAVE");
      own.restart(true);
      await()
          .atMost(Duration.ofSeconds(10))
          .ignoreExceptions()
          .until(() -> s.observe(k).holder() != null);
      var refused = s.acquire(k, a.holder(), "c|ns|b|ub", 60_000);
      assertThat(refused.unreserved()).isTrue();
      // Re-seeded from the durable floor: the next term is above every term issued before.
      s.reserve(k, 100, 200);
      var b = s.acquire(k, a.holder(), "c|ns|b|ub", 60_000);
      assertThat(b.term()).isEqualTo(101);
      // With a reservation in force, the floor no longer moves the counter.
      s.reserve(k, 150, 300);
      assertThat(s.acquire(k, b.holder(), "c|ns|a|ua", 60_000).term()).isEqualTo(102);
    }
  }

  @Test
  void aReservationFromBeforeReplicationIdsCountsByItsRunIdAloneUntilReservedAgain() {
    ElectionKeys k = keys("before-replid");
    String info = redis.command("INFO", "server");
    String runId = info.substring(info.indexOf("run_id:") + 7).lines().findFirst().orElseThrow();
    // As an operator from before wrote it: no key with the replication id beside it.
    redis.command("SET", k.reservation(), "100:" + runId.trim());
    var a = store.acquire(k, "", "c|ns|a|ua", 60_000);
    assertThat(a.term()).isEqualTo(1);
    assertThat(redis.command("EXISTS", k.reservedReplid())).isEqualTo(":0");
    // The next reservation records the replication id, and the reservation keeps its old form.
    store.reserve(k, 100, 200);
    String info2 = redis.command("INFO", "replication");
    String replId =
        info2.substring(info2.indexOf("master_replid:") + 14).lines().findFirst().orElseThrow();
    assertThat(redis.command("GET", k.reservedReplid())).endsWith(replId.trim());
    assertThat(redis.command("GET", k.reservation())).endsWith("200:" + runId.trim());
    assertThat(store.acquire(k, a.holder(), "c|ns|b|ub", 60_000).term()).isEqualTo(2);
  }

  @Test
  void aReservationBelowTheOneTheCallerKnowsIssuesNothingUntilReservedAgain() {
    ElectionKeys k = keys("older");
    store.reserve(k, 0, 100);
    var a = store.acquire(k, "", "c|ns|a|ua", 60_000, 100);
    assertThat(a.term()).isEqualTo(1);
    // The status holds 200 now, reserved on another Redis process that may have issued up to it:
    // this one is then a master that was replaced while it hung and serves before it learns so.
    var refused = store.acquire(k, a.holder(), "c|ns|b|ub", 60_000, 200);
    assertThat(refused.unreserved()).isTrue();
    assertThat(store.observe(k).holder()).isEqualTo(a.holder());
    // Its own reservation is valid but older than the floor: the counter is raised all the same.
    assertThat(store.reserve(k, 200, 300)).isEqualTo(300);
    var b = store.acquire(k, a.holder(), "c|ns|b|ub", 60_000, 300);
    assertThat(b.term()).isEqualTo(201);
  }

  @Test
  void aReservationAboveTheGroupsOwnIssuesNothingUntilTheGroupReservesAboveIt() {
    ElectionKeys k = keys("inherited");
    // Another resource had this key and reserved up to 1000; this group's status records none.
    store.reserve(k, 0, 1000);
    var refused = store.acquire(k, "", "c|ns|a|ua", 60_000, 0);
    assertThat(refused.unreserved()).isTrue();
    assertThat(refused.unreservedCounter()).as("the ceiling to reserve above").isEqualTo(1000);
    assertThat(store.observe(k).holder()).isNull();
    // Once the group's status records a ceiling above it, the one counter of the key goes on.
    assertThat(store.reserve(k, 1000, 1100)).isEqualTo(1100);
    assertThat(store.acquire(k, "", "c|ns|a|ua", 60_000, 1100).term()).isEqualTo(1);
  }

  @Test
  void aLocksTokenReservationOnTheSameKeyIsNotATermReservation() {
    ElectionKeys k = keys("lock-and-group");
    LockKeys lock = new LockKeys(k.electionKey());
    String info = redis.command("INFO", "server");
    String runId = info.substring(info.indexOf("run_id:") + 7).lines().findFirst().orElseThrow();
    // A lock's ceiling, valid on this Redis, in the key elections once shared.
    redis.command("SET", lock.reservation(), "5000:" + runId.trim());
    assertThat(lock.reservation()).isNotEqualTo(k.reservation());
    var none = store.acquire(k, "", "c|ns|a|ua", 60_000, 0);
    assertThat(none.unreserved()).isTrue();
    assertThat(none.unreservedCounter()).isZero();
    store.reserve(k, 0, 100);
    assertThat(store.acquire(k, "", "c|ns|a|ua", 60_000, 100).term()).isEqualTo(1);
  }

  @Test
  void renewsOnlyForTheOwnerAndReportsTheHolderOtherwise() {
    ElectionKeys k = reserved("renew");
    var a = store.acquire(k, "", "c|ns|a|ua", 1_000);
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
    ElectionKeys k = reserved("release");
    var a = store.acquire(k, "", "c|ns|a|ua", 10_000);
    assertThat(store.release(k, "c|ns|a|ua|999")).isFalse();
    assertThat(store.observe(k).holder()).isEqualTo(a.holder());
    assertThat(store.release(k, a.holder())).isTrue();
    var seen = store.observe(k);
    assertThat(seen.holder()).isNull();
    assertThat(seen.term()).isEqualTo(a.term());
  }

  @Test
  void keysShareOneHashTagSoScriptsWorkOnRedisCluster() {
    ElectionKeys k = keys("slot");
    assertThat(redis.command("CLUSTER", "KEYSLOT", k.holder()))
        .isEqualTo(redis.command("CLUSTER", "KEYSLOT", k.term()))
        .isEqualTo(redis.command("CLUSTER", "KEYSLOT", k.reservation()));
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
