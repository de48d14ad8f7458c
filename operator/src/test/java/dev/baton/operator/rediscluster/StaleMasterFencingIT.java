package dev.baton.operator.rediscluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.client.ElectionKeys;
import dev.baton.client.LockKeys;
import dev.baton.client.LockScripts;
import dev.baton.operator.lease.LeaseStore;
import dev.baton.operator.lease.LeaseStore.Acquisition;
import dev.baton.operator.lease.RedisConnections;
import dev.baton.operator.lease.RedisLeaseStore;
import dev.baton.operator.lease.RedisSettings;
import dev.baton.testkit.LocalRedis;
import dev.baton.testkit.LocalRedisCluster;
import dev.baton.testkit.Timeouts;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;

/**
 * The interleaving a chaos run on Redis Cluster found (seed 20261130), for election terms and lock
 * tokens alike: a master hangs, its replica is promoted and issues numbers from a new reservation;
 * the old master comes back as a replica but has not synced yet when the new master hangs in turn,
 * so the old master is promoted again with its old data, the reservation it made itself included.
 * That reservation must not count: the same process, but another replication history.
 */
class StaleMasterFencingIT {

  private static final Duration WAIT = Timeouts.LONG_WAIT;
  private static final long TTL = 1000;

  private LocalRedisCluster redis;
  private RedisConnections connections;
  private RedissonClient app;

  /** One kind of fencing number, issued by its own scripts. */
  enum Kind {
    TERMS,
    TOKENS
  }

  /** What a script answered: issued a number, or refused for want of a reservation. */
  private record Issued(boolean taken, boolean unreserved, long number) {}

  @BeforeEach
  void start() {
    redis = LocalRedisCluster.start();
    connections = new RedisConnections(RedisLeaseStore.ScriptTimer.NONE, Duration.ofMillis(500));
    app = RedisClusterIT.connect(redis);
  }

  @AfterEach
  void stop() {
    app.shutdown();
    connections.close();
    redis.close();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aFormerMasterPromotedBeforeItSyncedIssuesNothingFromItsOldReservation(Kind kind) {
    Numbers numbers =
        kind == Kind.TERMS
            ? new Terms(connections.leaseStore(new RedisSettings(redis.url(), null, null)))
            : new Tokens(app);
    int slot = redis.slot(numbers.key());
    LocalRedis first = redis.masterOf(slot);
    LocalRedis second = redis.replicaOf(first);

    // The first master issues two numbers within the reservation 100; its replica has only 1.
    numbers.reserve(0, 100);
    assertThat(numbers.issue().number()).isEqualTo(1);
    redis.awaitReplicasInSync(WAIT);
    await().atMost(WAIT).until(() -> first.command("WAIT", "1", "1000").equals(":1"));
    second.freeze();
    first.command("CLIENT", "KILL", "TYPE", "replica");
    assertThat(numbers.issue().number()).isBetween(2L, 100L);

    // The first master hangs; the replica, thawed, is promoted without the second number.
    first.freeze();
    second.thaw();
    awaitMaster(slot, second);
    // Its full sync towards the first master is held back: that one stays on its old data.
    second.command("CONFIG", "SET", "repl-diskless-sync-delay", "3600");

    // The operator reserves on the new master (the status held 100 before): numbers go on at 101.
    assertThat(awaitAnswer(numbers).unreserved()).as("a promoted replica, unreserved").isTrue();
    numbers.reserve(100, 200);
    assertThat(awaitAnswer(numbers).number()).isEqualTo(101);

    // The first master comes back as a replica, not synced, and is promoted again.
    first.thaw();
    await().atMost(WAIT).until(() -> first.command("INFO", "replication").contains("role:slave"));
    assertThat(first.command("INFO", "replication")).contains("master_link_status:down");
    second.freeze();
    awaitMaster(slot, first);

    // Its own reservation (100, under its run id) survived in its old data: it must not count.
    Issued again = awaitAnswer(numbers);
    assertThat(again.taken())
        .as(
            "%s %d issued after 101 from a reservation of another replication history",
            kind, again.number())
        .isFalse();
    assertThat(again.unreserved()).isTrue();
    numbers.reserve(200, 300);
    assertThat(awaitAnswer(numbers).number()).isEqualTo(201);
  }

  /** The first answer once the slot's master answers (the client follows the new topology). */
  private static Issued awaitAnswer(Numbers numbers) {
    return await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(numbers::issue, a -> a.taken() || a.unreserved());
  }

  private void awaitMaster(int slot, LocalRedis expected) {
    await()
        .atMost(WAIT)
        .ignoreExceptions()
        .until(
            () ->
                redis.masterOf(slot) == expected
                    && expected.command("CLUSTER", "INFO").contains("cluster_state:ok"));
  }

  /** Reserves numbers and issues the next one, taking over from the last holder. */
  private interface Numbers {
    String key();

    void reserve(long floor, long ceiling);

    Issued issue();
  }

  /** Election terms, through the operator's lease store. */
  private static final class Terms implements Numbers {
    private final LeaseStore store;
    private final ElectionKeys keys = new ElectionKeys("shop/stale");
    private String holder = "";

    Terms(LeaseStore store) {
      this.store = store;
    }

    @Override
    public String key() {
      return keys.holder();
    }

    @Override
    public void reserve(long floor, long ceiling) {
      store.reserve(keys, floor, ceiling);
    }

    @Override
    public Issued issue() {
      // After a promotion the last holder's record may be gone or expired: take it over or free.
      Acquisition a = store.acquire(keys, holder, "c|shop|p|uid", TTL);
      if (!a.acquired() && !a.unreserved() && !holder.isEmpty()) {
        a = store.acquire(keys, "", "c|shop|p|uid", TTL);
      }
      if (a.acquired()) {
        holder = a.holder();
      }
      return new Issued(a.acquired(), a.unreserved(), a.term());
    }
  }

  /** Lock tokens, through the scripts applications run (the client library's). */
  private static final class Tokens implements Numbers {
    private final RScript script;
    private final LockKeys keys = new LockKeys("shop/stale-lock");
    private int owners;
    private String owner;

    Tokens(RedissonClient app) {
      this.script = app.getScript(org.redisson.client.codec.StringCodec.INSTANCE);
    }

    @Override
    public String key() {
      return keys.lock();
    }

    @Override
    public void reserve(long floor, long ceiling) {
      eval(
          LockScripts.RESERVE,
          List.of(keys.token(), keys.reservation(), keys.reservedReplid()),
          Long.toString(floor),
          Long.toString(ceiling));
    }

    @Override
    public Issued issue() {
      if (owner != null) {
        eval(LockScripts.RELEASE, List.of(keys.lock(), keys.token()), owner);
      }
      String value = "owner-" + ++owners;
      List<Object> r =
          eval(
              LockScripts.ACQUIRE,
              List.of(keys.lock(), keys.token(), keys.reservation(), keys.reservedReplid()),
              value,
              Long.toString(TTL),
              "0");
      long code = (Long) r.get(0);
      if (code == 1L) {
        owner = value;
      }
      return new Issued(code == 1L, code == -1L, code == 1L ? (Long) r.get(3) : -1);
    }

    private List<Object> eval(LockScripts lua, List<Object> keyList, Object... args) {
      return script.eval(
          keyList.get(0).toString(),
          RScript.Mode.READ_WRITE,
          lua.source(),
          RScript.ReturnType.LIST,
          keyList,
          args);
    }
  }
}
