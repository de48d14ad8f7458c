package dev.baton.operator.replica;

import dev.baton.client.BoundedRedisCall;
import dev.baton.client.DaemonThreads;
import dev.baton.client.ElectionKeys;
import dev.baton.operator.lease.LeaseStore;
import dev.baton.operator.lease.RedisConnections;
import dev.baton.operator.lease.RedisSettings;
import dev.baton.operator.lease.RedisUnavailableException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.redisson.api.RBucket;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A replica run without leader election ({@code BATON_LEADER_ELECTION=false}), meant to be the only
 * one. Two such replicas would both act, and two actors can show two leaders for a moment, so each
 * registers in the default Redis under its cluster id; one that finds another registered stands by
 * and says so (log, metric, /readyz) instead of fighting it, and acts once that registration
 * lapses. While Redis does not answer the replica acts (one replica must work with Redis down, and
 * a Redis that is down changes no leader anyway).
 */
public final class SoleReplica implements ReplicaRole {

  private static final Logger log = LoggerFactory.getLogger(SoleReplica.class);
  private static final Duration TTL = Duration.ofSeconds(3);

  private final RedisConnections connections;
  private final RedisSettings redis;
  private final ElectionKeys keys;
  private final String identity;
  private final Consumer<Boolean> conflict;
  private final ScheduledExecutorService timer;
  private volatile boolean active;
  private volatile String other;
  private long lastWarnedNanos;
  private Runnable onActive;
  private Runnable onLost;

  /**
   * @param conflict told true while another replica is registered, false once it is not
   */
  public SoleReplica(
      RedisConnections connections,
      RedisSettings redis,
      String clusterId,
      String identity,
      Consumer<Boolean> conflict) {
    this.connections = connections;
    this.redis = redis;
    this.keys = new ElectionKeys("baton-operator/" + clusterId);
    this.identity = identity;
    this.conflict = conflict;
    this.timer =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("baton-sole-replica"));
  }

  @Override
  public void start(Runnable onActive, Runnable onLost) {
    this.onActive = onActive;
    this.onLost = onLost;
    check();
    long period = TTL.toMillis() / 3;
    timer.scheduleWithFixedDelay(this::check, period, period, TimeUnit.MILLISECONDS);
  }

  @Override
  public boolean holdsRole() {
    return active;
  }

  @Override
  public boolean mayAct() {
    return active;
  }

  @Override
  public String describe() {
    return active
        ? "active (leader election off)"
        : "standby: replica " + other + " is active with leader election off";
  }

  private void check() {
    try {
      LeaseStore store = connections.leaseStore(redis);
      RBucket<String> key =
          connections.redisson(redis).getBucket(keys.holder(), StringCodec.INSTANCE);
      boolean mine =
          BoundedRedisCall.await(key.setIfAbsentAsync(identity, TTL), connections.callBound())
              || store.renew(keys, identity, TTL.toMillis()).renewed();
      if (mine) {
        other = null;
        conflict.accept(false);
        if (!active) {
          active = true;
          log.info("Operator replica {}: active (leader election off)", identity);
          onActive.run();
        }
        return;
      }
      String holder = store.observe(keys).holder();
      if (!anotherHolds(holder, identity)) {
        // Redis changed between the claim and this read (restarted empty, failed over): nobody
        // else is registered, and the next check claims the key.
        return;
      }
      other = holder;
      conflict.accept(true);
      warn();
      if (active) {
        active = false;
        onLost.run();
      }
    } catch (RedisUnavailableException | org.redisson.client.RedisException e) {
      if (!active) {
        active = true;
        log.warn(
            "Operator replica {}: Redis does not answer, so it cannot tell whether another"
                + " replica is active; acting as the only one ({})",
            identity,
            e.getMessage());
        onActive.run();
      }
    } catch (RuntimeException e) {
      log.warn("Operator replica {}: replica check failed: {}", identity, e.toString());
    }
  }

  /** Whether the registration read after a failed claim is another replica's. */
  static boolean anotherHolds(String holder, String identity) {
    return holder != null && !holder.equals(identity);
  }

  private void warn() {
    long now = System.nanoTime();
    if (lastWarnedNanos == 0 || now - lastWarnedNanos > TimeUnit.MINUTES.toNanos(1)) {
      lastWarnedNanos = now;
      log.error(
          "Operator replica {}: another replica, {}, is active for this cluster id with"
              + " leader election off; this one stands by rather than fight it. Run one replica, or"
              + " set BATON_LEADER_ELECTION=true on all of them.",
          identity,
          other);
    }
  }

  @Override
  public void close() {
    boolean wasActive = active;
    active = false;
    timer.shutdownNow();
    if (wasActive) {
      try {
        connections.leaseStore(redis).release(keys, identity);
      } catch (RuntimeException e) {
        log.debug("Operator replica {}: registration left to expire: {}", identity, e.getMessage());
      }
    }
  }
}
