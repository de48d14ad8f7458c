package dev.baton.operator.redislock;

import static dev.baton.operator.redislock.RedlockIT.awaitHolder;
import static dev.baton.operator.redislock.RedlockIT.token;
import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.RedisConnectionRef;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.api.v1alpha1.RedlockSpec;
import dev.baton.client.BatonLock;
import dev.baton.client.BatonLocks;
import dev.baton.client.LockKeys;
import dev.baton.client.LockLease;
import dev.baton.client.LockOwner;
import dev.baton.operator.BatonOperator;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.ClusterTest;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * The RedisLock behaviours of docs/api.md and docs/design.md, against real Redis and the mock API
 * server.
 */
class RedisLockIT extends ClusterTest {

  private static final String HELD = "locks.baton.dev/migration";

  private RedissonClient redisson;

  @BeforeEach
  void start() {
    redisson = TestRedisson.connect(cluster.redis);
  }

  @AfterEach
  void stop() {
    redisson.shutdown();
  }

  private BatonLock appLock(Pod pod, String key, Duration ttl) {
    return BatonLocks.singleRedis(
            redisson, LockOwner.pod(NS, pod.getMetadata().getName(), pod.getMetadata().getUid()))
        .lock(key, ttl);
  }

  @Test
  void grantedLockMovesBreakBeforeMakeWhenItsHolderIsDeletedOrNotReadyEvenWithTwoOperators() {
    cluster.createPods("migrate", 3);
    cluster.startOperator();
    try (BatonOperator second = cluster.startAnotherOperator();
        HeldLabelWatcher watcher = new HeldLabelWatcher(cluster.client, NS, "migration")) {
      cluster.create(BatonCluster.grantedLock("migration", "30s", "migrate"));

      String first = awaitHolder(cluster, "migration");
      long firstToken = token(cluster, "migration");
      assertThat(first).as("the oldest ready pod").isEqualTo("migrate-0");
      Pod holder = cluster.pod(first);
      assertThat(cluster.redis.command("GET", LockKeys.forResource(NS, "migration").lock()))
          .contains(
              "pod:" + NS + "/" + first + "/" + holder.getMetadata().getUid() + ":baton.default.");
      cluster.assertLockCondition("migration", "Ready").hasStatus("True").hasReason("Granted");
      RedisLock lock = cluster.lock("migration");
      assertThat(lock.getStatus().getAcquiredAt()).isNotNull();
      assertThat(Instant.parse(lock.getStatus().getExpiresAt()))
          .isBetween(Instant.now().plusSeconds(20), Instant.now().plusSeconds(31));

      long deletedAt = System.nanoTime();
      cluster.deletePod(first);
      // WAIT is shorter than the 30 s ttl: the lock moves on the pod event, not on expiry.
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(5))
          .until(() -> watcher.holders().size() == 1 && !watcher.holders().contains(first));
      long movedMillis = (System.nanoTime() - deletedAt) / 1_000_000;
      String next = awaitHolder(cluster, "migration");
      assertThat(token(cluster, "migration")).isGreaterThan(firstToken);

      cluster.setReady(next, false);
      await()
          .atMost(WAIT)
          .until(() -> watcher.holders().size() == 1 && !watcher.holders().contains(next));
      String last = awaitHolder(cluster, "migration");
      assertThat(last).isNotIn(first, next);
      assertThat(cluster.pod(next).getMetadata().getLabels()).doesNotContainKey(HELD);
      assertThat(cluster.pod(next).getMetadata().getAnnotations()).doesNotContainKey(HELD);

      assertThat(watcher.violations()).as(watcher.history()).isEmpty();
      assertThat(watcher.tokens())
          .as(watcher.history())
          .hasSizeGreaterThanOrEqualTo(3)
          .isSorted()
          .doesNotHaveDuplicates();
      assertThat(cluster.eventReasons("migration")).contains("LockAcquired", "LockMoved");
      System.out.println(
          "granted lock moved after holder deletion in " + movedMillis + " ms (watcher-observed)");
    }
  }

  @Test
  void appHeldLockOfADeletedPodIsReapedLongBeforeItsTtl() {
    Pod app = cluster.createPod("report-0", "report");
    Pod other = cluster.createPod("report-1", "report");
    cluster.startOperator();
    cluster.create(BatonCluster.redisLock("report", "30s"));
    LockKeys keys = LockKeys.forResource(NS, "report");
    LockLease lease = appLock(app, keys.key(), Duration.ofSeconds(30)).tryAcquire().orElseThrow();

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              RedisLock l = cluster.lock("report");
              assertThat(l.getStatus()).isNotNull();
              assertThat(l.getStatus().getHolder())
                  .as(cluster.describeLock("report"))
                  .isEqualTo(NS + "/report-0");
              assertThat(l.getStatus().getFencingToken()).isEqualTo(lease.token());
              assertThat(l.getStatus().getExpiresAt()).isNotNull();
              cluster.assertLockCondition("report", "Ready").hasReason("Held");
            });

    long deletedAt = System.nanoTime();
    cluster.deletePod("report-0");
    // WAIT is shorter than the 30 s ttl: the lock is reaped on the pod event, not on expiry.
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(10))
        .until(() -> cluster.redis.command("EXISTS", keys.lock()).equals(":0"));
    long reapedMillis = (System.nanoTime() - deletedAt) / 1_000_000;
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(cluster.lockStatus("report").getHolder()).isEmpty();
              assertThat(cluster.eventReasons("report")).contains("LockReaped");
            });
    assertThat(lease.renew()).as("the reaped hold is not renewed back").isFalse();

    LockLease next = appLock(other, keys.key(), Duration.ofSeconds(30)).tryAcquire().orElseThrow();
    assertThat(next.token()).isGreaterThan(lease.token());
    // Reaped at once: what the dead-holder alert compares, its holder's dead time, never grew
    // past the ttl beside it.
    var registry = cluster.operator().registry();
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(
                      registry
                          .find(BatonMetrics.LOCK_TTL)
                          .tags("namespace", NS, "lock", "report")
                          .gauge()
                          .value())
                  .isEqualTo(30.0);
              assertThat(
                      registry
                          .find(BatonMetrics.LOCK_DEAD_HOLDER)
                          .tags("namespace", NS, "lock", "report")
                          .gauge()
                          .value())
                  .isZero();
            });
    System.out.println("app-held lock reaped " + reapedMillis + " ms after its pod was deleted");
  }

  @Test
  void anApplicationsLockShowsAsItIsTakenAndReleasedNotOnTheTimer() {
    Pod app = cluster.createPod("report-0", "report");
    cluster.startOperator();
    // A 30 s ttl: the operator's own look at the lock comes every 10 s. Each change below must show
    // well within that, ten times in a row, which only the scripts' notifications make happen.
    cluster.create(BatonCluster.redisLock("report", "30s"));
    await().atMost(WAIT).until(() -> cluster.lockCondition("report", "Ready").isPresent());
    LockKeys keys = LockKeys.forResource(NS, "report");
    BatonLock lock = appLock(app, keys.key(), Duration.ofSeconds(30));
    Duration seen = Duration.ofSeconds(4);
    for (int i = 0; i < 5; i++) {
      LockLease lease = lock.tryAcquire().orElseThrow();
      await()
          .atMost(seen)
          .pollInterval(Duration.ofMillis(10))
          .untilAsserted(
              () -> {
                RedisLockStatus status = cluster.lockStatus("report");
                assertThat(status.getHolder())
                    .as(cluster.describeLock("report"))
                    .isEqualTo(NS + "/report-0");
                assertThat(status.getFencingToken()).isEqualTo(lease.token());
              });
      assertThat(lease.release()).isTrue();
      await()
          .atMost(seen)
          .pollInterval(Duration.ofMillis(10))
          .untilAsserted(
              () ->
                  assertThat(cluster.lockStatus("report").getHolder())
                      .as(cluster.describeLock("report"))
                      .isEmpty());
    }
  }

  @Test
  void lockNamingAPodThatExistsWithAnotherUidIsReaped() {
    cluster.createPod("job-0", "job");
    cluster.startOperator();
    cluster.create(BatonCluster.redisLock("job", "3s"));
    LockKeys keys = LockKeys.forResource(NS, "job");
    // A value from an earlier pod of the same name: that pod (that uid) is gone.
    LockLease stale =
        BatonLocks.singleRedis(redisson, LockOwner.pod(NS, "job-0", "old-uid"))
            .lock(keys.key(), Duration.ofSeconds(3))
            .tryAcquire()
            .orElseThrow();
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(10))
        .until(() -> cluster.redis.command("EXISTS", keys.lock()).equals(":0"));
    assertThat(stale.isValid()).as("reaped within the first ttl").isTrue();
    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(cluster.eventReasons("job")).contains("LockReaped"));
  }

  @Test
  void forceReleaseAnnotationReleasesWhateverHoldsTheLockAndIsRemoved() {
    Pod app = cluster.createPod("batch-0", "batch");
    for (int i = 0; i < 2; i++) {
      cluster.createPod("migrate-" + i, "migrate");
    }
    cluster.startOperator();
    cluster.create(BatonCluster.redisLock("batch", "30s"));
    cluster.create(BatonCluster.grantedLock("migration", "30s", "migrate"));
    LockKeys keys = LockKeys.forResource(NS, "batch");
    LockLease lease = appLock(app, keys.key(), Duration.ofSeconds(30)).tryAcquire().orElseThrow();
    String holder = awaitHolder(cluster, "migration");
    long before = token(cluster, "migration");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(cluster.lockStatus("batch").getHolder()).isEqualTo(NS + "/batch-0"));

    cluster.annotateLock("batch", "baton.dev/force-release", "now");
    cluster.annotateLock("migration", "baton.dev/force-release", "now");

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(cluster.redis.command("EXISTS", keys.lock())).isEqualTo(":0");
              assertThat(cluster.lock("batch").getMetadata().getAnnotations())
                  .doesNotContainKey("baton.dev/force-release");
              assertThat(cluster.lockStatus("batch").getHolder()).isEmpty();
              assertThat(cluster.lock("migration").getMetadata().getAnnotations())
                  .doesNotContainKey("baton.dev/force-release");
              assertThat(token(cluster, "migration")).isGreaterThan(before);
            });
    assertThat(lease.renew()).isFalse();
    // The granted lock is granted again at once, with a new token, to a ready pod.
    assertThat(awaitHolder(cluster, "migration")).isIn(holder, "migrate-0", "migrate-1");
    assertThat(cluster.eventReasons("batch")).contains("ForceReleased");
    assertThat(cluster.eventReasons("migration")).contains("ForceReleased");
  }

  @Test
  void badInputEndsInAClearInvalidCondition() {
    cluster.startOperator();
    RedisLock both = BatonCluster.redisLock("both", "10s");
    both.getSpec().setRedis(new RedisConnectionRef("lock-redis"));
    both.getSpec()
        .setRedlock(
            new RedlockSpec(
                List.of(
                    new RedisConnectionRef("a"),
                    new RedisConnectionRef("b"),
                    new RedisConnectionRef("c"))));
    cluster.create(both);
    RedisLock even = BatonCluster.redisLock("even", "10s");
    even.getSpec()
        .setRedlock(
            new RedlockSpec(
                List.of(
                    new RedisConnectionRef("a"),
                    new RedisConnectionRef("b"),
                    new RedisConnectionRef("c"),
                    new RedisConnectionRef("d"))));
    cluster.create(even);
    RedisLock noSecret = BatonCluster.redisLock("no-secret", "10s");
    noSecret.getSpec().setRedis(new RedisConnectionRef("lock-redis"));
    cluster.create(noSecret);
    RedisLock longTtl = BatonCluster.redisLock("long-ttl", "2h");
    cluster.create(longTtl);
    cluster.create(BatonCluster.redisLock("fine", "10s"));

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertInvalid("both", "InvalidSpec", "set spec.redis or spec.redlock, not both");
              assertInvalid(
                  "even", "InvalidSpec", "spec.redlock needs an odd number of instances, got 4");
              assertInvalid("no-secret", "SecretNotFound", "Secret shop/lock-redis not found");
              assertInvalid("long-ttl", "InvalidSpec", "spec.ttl (2h) must be between 1s and 1h");
              cluster.assertLockCondition("fine", "Invalid").hasStatus("False");
              cluster.assertLockCondition("fine", "Ready").hasStatus("True");
            });
    cluster.assertLockCondition("no-secret", "RedisAvailable").hasStatus("False");
    assertThat(cluster.eventReasons("even")).contains("InvalidSpec");

    // Once the Secret exists, the lock recovers without anyone touching it.
    cluster.createRedisSecret("lock-redis", cluster.redis.url());
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              cluster.assertLockCondition("no-secret", "Invalid").hasStatus("False");
              cluster.assertLockCondition("no-secret", "Ready").hasStatus("True");
            });
  }

  private void assertInvalid(String lock, String reason, String message) {
    cluster
        .assertLockCondition(lock, "Invalid")
        .as(cluster.describeLock(lock))
        .hasStatus("True")
        .hasReason(reason)
        .hasMessageContaining(message);
    cluster.assertLockCondition(lock, "Ready").hasStatus("False");
  }
}
