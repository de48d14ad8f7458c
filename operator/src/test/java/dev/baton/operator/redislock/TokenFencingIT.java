package dev.baton.operator.redislock;

import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.client.BatonLock;
import dev.baton.client.BatonLocks;
import dev.baton.client.LockLease;
import dev.baton.client.LockOwner;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.FaultClusterTest;
import dev.baton.testkit.FaultInjector;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * RedisLock fencing tokens under the interleaving that broke election terms: a token is issued and
 * shown while the status write that would record it fails, the operator restarts, Redis comes back
 * empty. The next token must be above every token issued before, in both modes.
 */
class TokenFencingIT extends FaultClusterTest {

  private RedissonClient redisson;

  @BeforeEach
  void start(BatonCluster cluster) {
    redisson = TestRedisson.connect(cluster.redis);
  }

  @AfterEach
  void stop() {
    redisson.shutdown();
  }

  @Test
  void aGrantedTokenIsNeverIssuedAgainAfterAFailedStatusWriteRedisDataLossAndARestart() {
    cluster.createPods("batch", 3);
    cluster.startOperator();
    try (HeldLabelWatcher watcher = new HeldLabelWatcher(cluster.client, NS, "nightly")) {
      cluster.create(BatonCluster.grantedLock("nightly", "3s", "batch"));
      String first = RedlockIT.awaitHolder(cluster, "nightly");
      long firstToken = RedlockIT.token(cluster, "nightly");

      faults.get().failAll(FaultInjector.statusWrites("redislocks", "nightly"));
      cluster.deletePod(first);
      String second =
          await().atMost(WAIT).until(() -> heldBy(cluster), p -> p != null && !p.equals(first));
      long secondToken = tokenOn(cluster.pod(second));
      assertThat(secondToken).isGreaterThan(firstToken);
      assertThat(cluster.lockStatus("nightly").getFencingToken())
          .as("the status write of the second token failed")
          .isEqualTo(firstToken);

      cluster.stopOperator();
      cluster.redis.restart(false);
      cluster.deletePod(second);
      faults.get().clear();
      cluster.startOperator();

      String third =
          await().atMost(WAIT).until(() -> heldBy(cluster), p -> p != null && !p.equals(second));
      assertThat(tokenOn(cluster.pod(third)))
          .as(cluster.describeLock("nightly"))
          .isGreaterThan(secondToken);
      assertThat(watcher.violations()).isEmpty();
    }
  }

  @Test
  void anApplicationTokenIsNeverIssuedAgainAfterAFailedStatusWriteRedisDataLossAndARestart() {
    Pod a = cluster.createPod("worker-a", "worker");
    Pod b = cluster.createPod("worker-b", "worker");
    cluster.startOperator();
    cluster.create(BatonCluster.redisLock("jobs", "3s"));
    BatonLock fromA = appLock(a);

    LockLease firstHold = fromA.tryAcquire(WAIT).orElseThrow();
    await()
        .atMost(WAIT)
        .until(
            () ->
                cluster.lockStatus("jobs") != null
                    && Long.valueOf(firstHold.token())
                        .equals(cluster.lockStatus("jobs").getFencingToken()));

    faults.get().failAll(FaultInjector.statusWrites("redislocks", "jobs"));
    firstHold.release();
    LockLease secondHold = fromA.tryAcquire(WAIT).orElseThrow();
    long heldAt = System.nanoTime();
    assertThat(secondHold.token()).isGreaterThan(firstHold.token());
    // The operator looked after the second acquire and tried to record it: two status writes came
    // after it (the second from a reconcile that began after the first failed, so it read the
    // second token). The status below shows the first because those writes failed, not because
    // nobody looked yet.
    await()
        .atMost(WAIT)
        .until(
            () ->
                faults.get().writes().stream()
                        .filter(w -> w.atNanos() > heldAt)
                        .filter(w -> w.path().contains("/redislocks/jobs/status"))
                        .count()
                    >= 2);
    assertThat(cluster.lockStatus("jobs").getFencingToken())
        .as("the status write of the second token failed")
        .isEqualTo(firstHold.token());

    cluster.stopOperator();
    cluster.redis.restart(false);
    faults.get().clear();
    cluster.startOperator();

    // Another pod, which never saw a token: only Redis and the operator can keep it above.
    LockLease third = appLock(b).tryAcquire(WAIT).orElseThrow();
    assertThat(third.token()).as(cluster.describeLock("jobs")).isGreaterThan(secondHold.token());
  }

  /**
   * Another operator replica reserved tokens up to 50,000 on another Redis process (a replica
   * promoted while this Redis hung) and may have granted them there. This Redis's own reservation
   * is still valid by its ids, but lower: the next granted token must start above 50,000.
   */
  @Test
  void aReservationRecordedSinceOnAnotherRedisIsNeverUndercutByAGrant() {
    cluster.createPods("batch", 3);
    cluster.startOperator();
    cluster.create(BatonCluster.grantedLock("nightly", "3s", "batch"));
    String first = RedlockIT.awaitHolder(cluster, "nightly");
    cluster.recordReservedToken("nightly", 50_000L);
    await().atMost(WAIT).until(() -> cluster.lockStatus("nightly").getReservedToken() >= 50_000L);

    cluster.deletePod(first);
    String second =
        await().atMost(WAIT).until(() -> heldBy(cluster), p -> p != null && !p.equals(first));
    assertThat(tokenOn(cluster.pod(second)))
        .as(cluster.describeLock("nightly"))
        .isGreaterThan(50_000L);
  }

  /**
   * A ceiling in the lock's {@code :reserved} that its status never recorded (a LeaderGroup on the
   * same key raised it before elections had a reservation of their own): the operator records it in
   * the status before anything relies on it, so tokens issued under it are never issued again after
   * Redis loses its data.
   */
  @Test
  void aCeilingFoundAboveTheLocksStatusIsRecordedBeforeRedisLosesIt() {
    Pod a = cluster.createPod("worker-a", "worker");
    Pod b = cluster.createPod("worker-b", "worker");
    String info = cluster.redis.command("INFO", "server");
    String runId = info.substring(info.indexOf("run_id:") + 7).lines().findFirst().orElseThrow();
    cluster.redis.command("SET", "baton:{" + NS + "/jobs}:token", "1500");
    cluster.redis.command("SET", "baton:{" + NS + "/jobs}:reserved", "5000:" + runId.trim());
    cluster.startOperator();
    cluster.create(BatonCluster.redisLock("jobs", "3s"));
    await()
        .atMost(WAIT)
        .until(
            () ->
                cluster.lockStatus("jobs") != null
                    && cluster.lockStatus("jobs").getReservedToken() != null
                    && cluster.lockStatus("jobs").getReservedToken() >= 5000L);
    assertThat(cluster.redis.command("GET", "baton:{" + NS + "/jobs}:reserved"))
        .as("the cover writes nothing to Redis")
        .contains("5000:");

    LockLease underIt = appLock(a).tryAcquire(WAIT).orElseThrow();
    assertThat(underIt.token()).isEqualTo(1501);
    underIt.release();

    cluster.stopOperator();
    cluster.redis.restart(false);
    cluster.startOperator();
    LockLease after = appLock(b).tryAcquire(WAIT).orElseThrow();
    assertThat(after.token()).as(cluster.describeLock("jobs")).isGreaterThan(5000L);
  }

  private BatonLock appLock(Pod pod) {
    return BatonLocks.singleRedis(
            redisson, LockOwner.pod(NS, pod.getMetadata().getName(), pod.getMetadata().getUid()))
        .lock(NS + "/jobs", Duration.ofSeconds(3));
  }

  private static String heldBy(BatonCluster cluster) {
    var held =
        cluster.pods().stream()
            .filter(
                p ->
                    p.getMetadata().getLabels() != null
                        && "held"
                            .equals(p.getMetadata().getLabels().get("locks.baton.dev/nightly")))
            .map(p -> p.getMetadata().getName())
            .toList();
    return held.size() == 1 ? held.get(0) : null;
  }

  private static long tokenOn(Pod pod) {
    String t = pod.getMetadata().getAnnotations().get("locks.baton.dev/nightly");
    return Long.parseLong(t);
  }
}
