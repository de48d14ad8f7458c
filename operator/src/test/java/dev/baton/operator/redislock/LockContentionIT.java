package dev.baton.operator.redislock;

import static dev.baton.testkit.Sandbox.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.RedisConnectionRef;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedlockSpec;
import dev.baton.client.BatonLock;
import dev.baton.client.BatonLocks;
import dev.baton.client.LockLease;
import dev.baton.client.LockOwner;
import dev.baton.operator.BatonOperator;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.ClusterTest;
import dev.baton.testkit.LocalRedis;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Many application threads take one lock as fast as they can while two operator replicas observe
 * it; a checker records every critical section and finds no overlap and no repeated or decreasing
 * token.
 */
class LockContentionIT extends ClusterTest {

  private static final int THREADS = 8;

  /** Critical sections to run in all; the deadline is only there so a stuck run ends. */
  private static final int SECTIONS = 120;

  private static final Duration DEADLINE = Duration.ofSeconds(60);

  private final List<RedissonClient> clients = new ArrayList<>();
  private final List<LocalRedis> extra = new ArrayList<>();

  @AfterEach
  void stop() {
    clients.forEach(RedissonClient::shutdown);
    extra.forEach(LocalRedis::close);
  }

  @Test
  void threadsAndTwoOperatorsOnOneRedisNeverOverlapAndTokensOnlyGrow() throws Exception {
    RedissonClient redisson = TestRedisson.connect(cluster.redis);
    clients.add(redisson);
    hammer(
        cluster.create(BatonCluster.redisLock("hammer", "2s")),
        owner -> BatonLocks.singleRedis(redisson, owner));
  }

  @Test
  void threadsAndTwoOperatorsOnARedlockQuorumNeverOverlapAndTokensOnlyGrow() throws Exception {
    Map<String, RedissonClient> instances = new LinkedHashMap<>();
    List<RedisConnectionRef> refs = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      LocalRedis r = LocalRedis.start();
      extra.add(r);
      RedissonClient c = TestRedisson.connect(r);
      clients.add(c);
      instances.put("redis-" + i, c);
      cluster.createRedisSecret("redis-" + i, r.url());
      refs.add(new RedisConnectionRef("redis-" + i));
    }
    RedisLock lock = BatonCluster.redisLock("hammer", "2s");
    lock.getSpec().setRedlock(new RedlockSpec(refs));
    hammer(cluster.create(lock), owner -> BatonLocks.redlock(instances, owner));
  }

  private void hammer(RedisLock lock, Function<LockOwner, BatonLocks> locks) throws Exception {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < THREADS; i++) {
      pods.add(cluster.createPod("worker-" + i, "worker"));
    }
    cluster.startOperator();
    CriticalSections sections = new CriticalSections();
    ExecutorService pool = Executors.newFixedThreadPool(THREADS);
    try (BatonOperator second = cluster.startAnotherOperator()) {
      long deadline = System.nanoTime() + DEADLINE.toNanos();
      AtomicInteger entered = new AtomicInteger();
      List<Future<Integer>> runs = new ArrayList<>();
      for (Pod pod : pods) {
        String name = pod.getMetadata().getName();
        BatonLock l =
            locks
                .apply(LockOwner.pod(NS, name, pod.getMetadata().getUid()))
                .lock(NS + "/hammer", Duration.ofSeconds(2));
        runs.add(
            pool.submit(
                () -> {
                  int held = 0;
                  while (entered.get() < SECTIONS && System.nanoTime() < deadline) {
                    var got = l.tryAcquire(Duration.ofMillis(200));
                    if (got.isEmpty()) {
                      continue;
                    }
                    LockLease lease = got.get();
                    entered.incrementAndGet();
                    sections.enter(name, lease.token());
                    LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(50_000, 500_000));
                    if (!lease.isValid()) {
                      sections.violation(
                          name + " outlived its validity with token " + lease.token());
                    }
                    sections.exit(name);
                    if (!lease.release()) {
                      sections.violation(name + " could not release token " + lease.token());
                    }
                    held++;
                  }
                  return held;
                }));
      }
      int total = 0;
      List<Integer> perThread = new ArrayList<>();
      for (Future<Integer> f : runs) {
        int n = f.get(DEADLINE.toSeconds() + 20, TimeUnit.SECONDS);
        perThread.add(n);
        total += n;
      }
      assertThat(sections.violations()).isEmpty();
      assertThat(total)
          .as("critical sections per thread %s", perThread)
          .isGreaterThanOrEqualTo(SECTIONS);
      assertThat(perThread.stream().filter(n -> n > 0).count())
          .as("threads that held the lock, of %s", perThread)
          .isGreaterThan(1);
      long last = sections.lastToken();
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                RedisLock l = cluster.lock("hammer");
                assertThat(l.getStatus()).isNotNull();
                assertThat(cluster.lockCondition("hammer", "Ready"))
                    .get()
                    .extracting(c -> c.getStatus())
                    .isEqualTo("True");
                assertThat(l.getStatus().getFencingToken()).isNotNull().isLessThanOrEqualTo(last);
              });
      assertThat(cluster.eventReasons("hammer")).doesNotContain("LockReaped");
      System.out.println(
          (lock.getSpec().getRedlock() == null ? "single Redis" : "Redlock x3")
              + ": "
              + total
              + " critical sections by "
              + THREADS
              + " threads "
              + perThread
              + ", last token "
              + last);
    } finally {
      pool.shutdownNow();
    }
  }

  /** Records critical sections: two at once, or a token not above the previous, is a violation. */
  static final class CriticalSections {
    private final AtomicReference<String> inside = new AtomicReference<>();
    private final List<String> violations = Collections.synchronizedList(new ArrayList<>());
    private long lastToken;

    void enter(String who, long token) {
      if (!inside.compareAndSet(null, who)) {
        violation(who + " entered with token " + token + " while " + inside.get() + " was inside");
      }
      synchronized (this) {
        if (token <= lastToken) {
          violation(who + " entered with token " + token + " after token " + lastToken);
        }
        lastToken = Math.max(lastToken, token);
      }
    }

    void exit(String who) {
      if (!inside.compareAndSet(who, null)) {
        violation(who + " left while " + inside.get() + " was recorded inside");
      }
    }

    void violation(String what) {
      violations.add(what);
    }

    List<String> violations() {
      return List.copyOf(violations);
    }

    synchronized long lastToken() {
      return lastToken;
    }
  }
}
