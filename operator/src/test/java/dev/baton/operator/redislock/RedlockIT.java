package dev.baton.operator.redislock;

import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.RedisConnectionRef;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockInstanceStatus;
import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.api.v1alpha1.RedlockSpec;
import dev.baton.client.BatonLock;
import dev.baton.client.BatonLocks;
import dev.baton.client.LockLease;
import dev.baton.client.LockOwner;
import dev.baton.client.LockUnavailableException;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.testkit.LocalRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/** Redlock over five real redis-server processes, killed and restarted empty. */
class RedlockIT {

  private final List<LocalRedis> redis = new ArrayList<>();
  private final List<RedissonClient> clients = new ArrayList<>();

  @BeforeEach
  void start() {
    for (int i = 0; i < 5; i++) {
      redis.add(LocalRedis.start());
    }
  }

  @AfterEach
  void stop() {
    clients.forEach(RedissonClient::shutdown);
    redis.forEach(LocalRedis::close);
  }

  /** An application process: its own Redisson clients, one per instance. */
  private BatonLock process(String pod) {
    Map<String, RedissonClient> instances = new LinkedHashMap<>();
    for (int i = 0; i < redis.size(); i++) {
      RedissonClient c = TestRedisson.connect(redis.get(i));
      clients.add(c);
      instances.put("redis-" + i, c);
    }
    // Not a pod of the cluster: the operator would reap its locks at once.
    return BatonLocks.redlock(instances, LockOwner.external(pod))
        .lock("shop/redlock", Duration.ofSeconds(2));
  }

  /** A Secret redis-i for each instance, as spec.redlock names them. */
  private List<RedisConnectionRef> instanceSecrets(BatonCluster cluster) {
    List<RedisConnectionRef> refs = new ArrayList<>();
    for (int i = 0; i < redis.size(); i++) {
      cluster.createRedisSecret("redis-" + i, redis.get(i).url());
      refs.add(new RedisConnectionRef("redis-" + i));
    }
    return refs;
  }

  private static long takeAndRelease(BatonLock lock, List<Long> tokens) {
    LockLease lease = lock.tryAcquire(Duration.ofSeconds(5)).orElseThrow();
    assertThat(lease.isValid()).isTrue();
    assertThat(lease.token())
        .as("tokens so far %s", tokens)
        .isGreaterThan(tokens.isEmpty() ? 0 : tokens.get(tokens.size() - 1));
    tokens.add(lease.token());
    assertThat(lease.release()).isTrue();
    return lease.token();
  }

  @Test
  void acquirableWithTwoOfFiveDeadNotWithThreeAndTokensGrowWhenInstancesComeBackEmpty() {
    try (BatonCluster cluster = new BatonCluster()) {
      List<RedisConnectionRef> refs = instanceSecrets(cluster);
      cluster.startOperator();
      // Taken by applications; the operator only observes it and reserves its tokens.
      RedisLock lock = BatonCluster.redisLock("redlock", "2s");
      lock.getSpec().setRedlock(new RedlockSpec(refs));
      cluster.create(lock);

      BatonLock app = process("app-a");
      List<Long> tokens = new ArrayList<>();
      for (int i = 0; i < 3; i++) {
        takeAndRelease(app, tokens);
      }

      redis.get(0).kill();
      redis.get(1).kill();
      takeAndRelease(app, tokens);

      redis.get(2).kill();
      assertThatThrownBy(app::tryAcquire)
          .isInstanceOf(LockUnavailableException.class)
          .hasMessageContaining("only 2 of 5 Redis instances answered, 3 needed");

      // A minority that lost its data: any majority still overlaps an instance that knows the
      // last token, so a process with no memory of earlier tokens still gets a greater one.
      redis.get(2).restart();
      BatonLock fresh = process("app-b");
      takeAndRelease(fresh, tokens);

      // Every instance restarted empty: no instance knows a token any more. The operator reserves
      // tokens on each again, above the reservation it recorded in the status before, so even a
      // process that never saw a token gets a greater one.
      for (LocalRedis r : redis) {
        r.restart();
      }
      takeAndRelease(process("app-c"), tokens);
      takeAndRelease(app, tokens);
      assertThat(tokens).isSorted().doesNotHaveDuplicates();
    }
  }

  @Test
  void operatorGrantsOverRedlockReportsQuorumLostAndGrantsAboveTheLastTokenAfterDataLoss() {
    try (BatonCluster cluster = new BatonCluster()) {
      List<RedisConnectionRef> refs = instanceSecrets(cluster);
      cluster.createPods("batch", 3);
      cluster.startOperator();
      RedisLock lock = BatonCluster.grantedLock("nightly", "10s", "batch");
      lock.getSpec().setRedlock(new RedlockSpec(refs));
      cluster.create(lock);

      String first = awaitHolder(cluster, "nightly");
      long firstToken = token(cluster, "nightly");
      assertThat(cluster.lockStatus("nightly").getInstances())
          .extracting(RedisLockInstanceStatus::getHolds)
          .containsOnly(true);

      redis.get(0).kill();
      redis.get(1).kill();
      cluster.deletePod(first);
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                RedisLockStatus l = cluster.lockStatus("nightly");
                assertThat(l.getHolder())
                    .as(cluster.describeLock("nightly"))
                    .isNotEqualTo(NS + "/" + first)
                    .isNotEmpty();
                assertThat(l.getFencingToken()).isGreaterThan(firstToken);
                assertThat(l.getInstances())
                    .extracting(RedisLockInstanceStatus::getReachable)
                    .containsExactly(false, false, true, true, true);
              });
      String second = awaitHolder(cluster, "nightly");
      long secondToken = token(cluster, "nightly");
      cluster.assertLockCondition("nightly", "QuorumLost").hasStatus("False");

      redis.get(2).kill();
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                cluster
                    .assertLockCondition("nightly", "QuorumLost")
                    .as(cluster.describeLock("nightly"))
                    .hasStatus("True")
                    .hasMessageContaining("only 2 of 5 Redlock instances answered");
                cluster.assertLockCondition("nightly", "Ready").hasReason("QuorumLost");
              });
      cluster.deletePod(second);
      await()
          .during(Duration.ofSeconds(1))
          .atMost(WAIT)
          .untilAsserted(
              () ->
                  assertThat(cluster.roles("locks.baton.dev/nightly"))
                      .as("nobody is granted the lock")
                      .isEmpty());
      assertThat(cluster.eventReasons("nightly")).contains("QuorumLost");

      for (LocalRedis r : redis) {
        r.restart();
      }
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                cluster.assertLockCondition("nightly", "QuorumLost").hasStatus("False");
                assertThat(token(cluster, "nightly"))
                    .as(cluster.describeLock("nightly"))
                    .isGreaterThan(secondToken);
              });
      String third = awaitHolder(cluster, "nightly");
      assertThat(third).isNotIn(first, second);
      assertThat(cluster.pod(third).getMetadata().getAnnotations())
          .containsEntry("locks.baton.dev/nightly", Long.toString(token(cluster, "nightly")));
    }
  }

  /** Waits until exactly one pod is labeled held and the status names it; returns its name. */
  static String awaitHolder(BatonCluster cluster, String lock) {
    String key = "locks.baton.dev/" + lock;
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(20))
        .untilAsserted(
            () -> {
              Map<String, String> held = cluster.roles(key);
              RedisLock l = cluster.lock(lock);
              assertThat(held).as(cluster.describeLock(lock)).hasSize(1).containsValue("held");
              assertThat(l.getStatus()).as(cluster.describeLock(lock)).isNotNull();
              assertThat(l.getStatus().getHolder())
                  .as(cluster.describeLock(lock))
                  .isEqualTo(NS + "/" + held.keySet().iterator().next());
              assertThat(
                      cluster.pod(held.keySet().iterator().next()).getMetadata().getAnnotations())
                  .as(cluster.describeLock(lock))
                  .containsEntry(key, Long.toString(l.getStatus().getFencingToken()));
            });
    return cluster.roles(key).keySet().iterator().next();
  }

  static long token(BatonCluster cluster, String lock) {
    Long token = cluster.lockStatus(lock).getFencingToken();
    return token == null ? 0 : token;
  }
}
