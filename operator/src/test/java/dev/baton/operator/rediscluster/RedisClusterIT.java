package dev.baton.operator.rediscluster;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.client.BatonLocks;
import dev.baton.client.ElectionKeys;
import dev.baton.client.HolderRecord;
import dev.baton.client.LockKeys;
import dev.baton.client.LockLease;
import dev.baton.client.LockOwner;
import dev.baton.operator.config.OperatorConfig;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.ClusterTest;
import dev.baton.testkit.InvariantChecker;
import dev.baton.testkit.LocalRedis;
import dev.baton.testkit.LocalRedisCluster;
import dev.baton.testkit.Timeouts;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;

/**
 * Baton on a real Redis Cluster: six redis-server processes (three masters, three replicas) joined
 * by redis-cli. Elections spread over all three masters, renewals batched per slot, locks granted
 * and taken by applications; then a master is killed and its replica promoted, and slots move
 * between masters while groups fail over. Labels never show two leaders, terms never go back.
 */
class RedisClusterIT extends ClusterTest {

  private static final Duration WAIT = Timeouts.LONG_WAIT;
  private static final int GROUPS = 9;

  private LocalRedisCluster redis;

  private RedissonClient app;
  private InvariantChecker checker;

  @BeforeEach
  void start() {
    redis = LocalRedisCluster.start();
    cluster.env(OperatorConfig.REDIS_URL, redis.url());
    app = connect(redis);
  }

  @AfterEach
  void stop() {
    if (checker != null) {
      checker.close();
    }
    app.shutdown();
    redis.close();
  }

  @Test
  void electionsSpreadOverTheMastersSurviveAMasterFailoverAndAResharding() {
    List<String> groups = new ArrayList<>();
    for (int g = 0; g < GROUPS; g++) {
      String name = "g" + g;
      groups.add(name);
      for (int i = 0; i < 3; i++) {
        cluster.createPod(name + "-" + i, name);
      }
    }
    // The elections' slots, as the cluster computes them, land on every master.
    Set<Integer> masters = new HashSet<>();
    for (String g : groups) {
      masters.add(redis.masterOf(redis.slot(new ElectionKeys(NS + "/" + g).holder())).port());
    }
    assertThat(masters).as("elections on every master").hasSize(3);

    cluster.startOperator();
    checker = new InvariantChecker(cluster.client, NS, ROLE, WAIT, this::holders);
    for (String g : groups) {
      cluster.create(BatonCluster.group(g, g));
    }
    Map<String, Long> terms = new HashMap<>();
    for (String g : groups) {
      String leader = awaitLeader(g);
      terms.put(g, term(leader));
    }
    // Renewals batched per slot keep every lease (ttl 3 s) through several ticks.
    await().during(Duration.ofSeconds(4)).atMost(WAIT).until(() -> allHeld(groups));

    // The master of g0's election dies; its replica is promoted. Then g0's leader fails.
    int slot = redis.slot(new ElectionKeys(NS + "/g0").holder());
    LocalRedis promoted = redis.killMasterOf(slot, WAIT);
    checker.disrupted("master of slot " + slot + " killed");
    String before = awaitLeader("g0");
    cluster.setReady(before, false);
    String after =
        await().atMost(WAIT).until(() -> leaderOf("g0"), p -> p != null && !p.equals(before));
    assertThat(term(after)).as("a term after the failover").isGreaterThan(terms.get("g0"));
    assertThat(redis.masterOf(slot)).isSameAs(promoted);
    for (String g : groups) {
      awaitLeader(g);
    }

    // g1's slot moves to another master, held half-way (ASK) while g1 fails over.
    int moving = redis.slot(new ElectionKeys(NS + "/g1").holder());
    LocalRedis target = redis.anotherMaster(moving);
    String g1Before = leaderOf("g1");
    long g1Term = term(g1Before);
    Thread mover =
        new Thread(() -> redis.moveSlot(moving, target, Duration.ofSeconds(2)), "reshard");
    mover.start();
    cluster.setReady(g1Before, false);
    String g1After =
        await().atMost(WAIT).until(() -> leaderOf("g1"), p -> p != null && !p.equals(g1Before));
    join(mover);
    assertThat(redis.masterOf(moving)).isSameAs(target);
    assertThat(term(g1After)).isGreaterThan(g1Term);
    await().during(Duration.ofSeconds(4)).atMost(WAIT).until(() -> allHeld(groups));

    assertThat(checker.violations()).as(checker.history(60)).isEmpty();
  }

  @Test
  void locksGrantedAndTakenByApplicationsReapedAndForceReleasedOnACluster() {
    Pod reporter = cluster.createPod("reports-0", "reports");
    cluster.createPod("batch-0", "batch");
    cluster.createPod("batch-1", "batch");
    cluster.startOperator();
    cluster.create(BatonCluster.grantedLock("batch", "3s", "batch"));
    cluster.create(BatonCluster.redisLock("reports", "30s"));

    String granted =
        await()
            .atMost(WAIT)
            .until(() -> cluster.lockStatus("batch").getHolder(), h -> h != null && !h.isEmpty());
    long grantedToken = cluster.lockStatus("batch").getFencingToken();

    LockKeys keys = LockKeys.forResource(NS, "reports");
    LockLease lease =
        BatonLocks.singleRedis(app, LockOwner.pod(NS, "reports-0", reporter.getMetadata().getUid()))
            .lock(keys.key(), Duration.ofSeconds(30))
            .tryAcquire()
            .orElseThrow();
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(cluster.lockStatus("reports").getHolder()).isEqualTo(NS + "/reports-0");
              assertThat(cluster.lockStatus("reports").getFencingToken()).isEqualTo(lease.token());
            });

    // The holder pod goes: its lock is reaped on the pod event.
    cluster.deletePod("reports-0");
    await()
        .atMost(WAIT)
        .until(() -> app.getBucket(keys.lock(), StringCodec.INSTANCE).get() == null);
    assertThat(lease.renew()).isFalse();

    // The master holding the granted lock dies; the lock moves on with a greater token.
    int slot = redis.slot(LockKeys.forResource(NS, "batch").lock());
    redis.killMasterOf(slot, WAIT);
    cluster.setReady(granted.substring(NS.length() + 1), false);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              RedisLock l = cluster.lock("batch");
              assertThat(l.getStatus().getHolder()).isNotEqualTo(granted).isNotEmpty();
              assertThat(l.getStatus().getFencingToken()).isGreaterThan(grantedToken);
            });

    cluster.annotateLock("batch", "baton.dev/force-release", "now");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(cluster.lock("batch").getMetadata().getAnnotations())
                    .doesNotContainKey("baton.dev/force-release"));
  }

  private boolean allHeld(List<String> groups) {
    Map<String, String> holders = holders();
    if (holders == null) {
      return false;
    }
    for (String g : groups) {
      String leader = leaderOf(g);
      if (leader == null || !leader.equals(holders.get(g))) {
        return false;
      }
    }
    return true;
  }

  /** Group name to the pod its Redis record names; null while the cluster cannot answer. */
  private Map<String, String> holders() {
    Map<String, String> out = new HashMap<>();
    try {
      for (int g = 0; g < GROUPS; g++) {
        String value =
            (String)
                app.getBucket(new ElectionKeys(NS + "/g" + g).holder(), StringCodec.INSTANCE).get();
        out.put("g" + g, HolderRecord.parse(value).map(HolderRecord::pod).orElse(null));
      }
    } catch (RuntimeException e) {
      return null;
    }
    return out;
  }

  private String awaitLeader(String group) {
    return await().atMost(WAIT).until(() -> leaderOf(group), p -> p != null);
  }

  private String leaderOf(String group) {
    LeaderGroup g = cluster.get(group);
    List<String> leaders =
        cluster.leaders(ROLE).stream().filter(p -> p.startsWith(group + "-")).toList();
    return leaders.size() == 1
            && g.getStatus() != null
            && leaders.get(0).equals(g.getStatus().getLeader())
        ? leaders.get(0)
        : null;
  }

  private long term(String pod) {
    return Long.parseLong(cluster.pod(pod).getMetadata().getAnnotations().get("baton.dev/term"));
  }

  private static void join(Thread t) {
    try {
      t.join(WAIT.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** An application's Redisson client on the cluster. */
  static RedissonClient connect(LocalRedisCluster redis) {
    Config config = new Config();
    config.setThreads(2);
    config.setNettyThreads(4);
    var c =
        config
            .useClusterServers()
            .setReadMode(ReadMode.MASTER)
            .setScanInterval(500)
            .setTimeout(1000)
            .setRetryAttempts(3);
    for (LocalRedis n : redis.nodes()) {
      c.addNodeAddress("redis://127.0.0.1:" + n.port());
    }
    return Redisson.create(config);
  }
}
