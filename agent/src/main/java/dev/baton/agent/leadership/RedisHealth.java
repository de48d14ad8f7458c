package dev.baton.agent.leadership;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the agent knows of the Redis that keeps its group's gate key, for /metrics, /readyz and the
 * log: when it last answered, which incarnation answered (a restart or a promoted replica is
 * another), whether its clock stepped, and what INFO says it does with the key (eviction,
 * persistence, replication). Written by the leadership loop alone; read by anyone. None of it
 * decides anything: a value from another incarnation already counts as absent, and no Redis clock
 * is read to decide (docs/design.md, "What Redis must and need not do").
 */
public final class RedisHealth {

  private static final Logger log = LoggerFactory.getLogger(RedisHealth.class);

  /** A step smaller than this (plus both round trips) is the jitter of millisecond readings. */
  private static final long STEP_SLACK_MILLIS = 100;

  private final long unreachableAfterNanos;
  private volatile long lastAnswerNanos = System.nanoTime();
  private volatile long lastFailureNanos = lastAnswerNanos;
  private volatile boolean failing;
  private volatile int evicts = -1;
  private volatile int aof = -1;
  private volatile long rdbSaves = -1;
  private volatile int master = -1;
  private volatile long replicas = -1;
  private volatile long goodReplicas = -1;
  private volatile long clockSteps;
  private volatile long lastStepMillis;
  private volatile long incarnations;
  // The last answer's incarnation and clock, for the next one's comparison.
  private String incarnation;
  private long lastRedisMillis;
  private long lastMidNanos;
  private long lastRoundTripNanos;
  private String lastFacts;

  RedisHealth(long unreachableAfterNanos) {
    this.unreachableAfterNanos = unreachableAfterNanos;
  }

  /**
   * Redis answered a script sent at {@code sent} and answered at {@code answered} (this process's
   * clock), as {@code inc}, its clock reading {@code redisMillis}.
   */
  void answered(long sent, long answered, String inc, long redisMillis) {
    lastAnswerNanos = answered;
    failing = false;
    long mid = sent + (answered - sent) / 2;
    long roundTrip = answered - sent;
    if (!inc.equals(incarnation)) {
      if (incarnation != null) {
        incarnations++;
        log.warn(
            "Redis answers as another incarnation ({} after {}): it restarted or a replica was"
                + " promoted; gate key values written before count as absent",
            inc,
            incarnation);
      }
      incarnation = inc;
    } else {
      long expected = lastRedisMillis + TimeUnit.NANOSECONDS.toMillis(mid - lastMidNanos);
      long step = redisMillis - expected;
      long slack =
          STEP_SLACK_MILLIS + TimeUnit.NANOSECONDS.toMillis(roundTrip + lastRoundTripNanos);
      if (Math.abs(step) > slack) {
        clockSteps++;
        lastStepMillis = step;
        log.warn(
            "Redis's clock stepped by {} ms against this agent's monotonic clock (an NTP step?):"
                + " the gate decides nothing by it; keys may expire early, which costs a wait",
            step);
      }
    }
    lastRedisMillis = redisMillis;
    lastMidNanos = mid;
    lastRoundTripNanos = roundTrip;
  }

  void failed(long now) {
    lastFailureNanos = now;
    failing = true;
  }

  /** Since when Redis has not answered, once that is longer than {@code confirmWithin}. */
  Optional<Duration> unreachableFor(long now) {
    long since = now - lastAnswerNanos;
    return failing && lastFailureNanos - lastAnswerNanos > 0 && since > unreachableAfterNanos
        ? Optional.of(Duration.ofNanos(since))
        : Optional.empty();
  }

  /** INFO of the key's node, each field blank when not permitted. */
  void facts(HoldKey.RedisFacts f) {
    evicts =
        f.maxmemory().isBlank() || f.policy().isBlank()
            ? -1
            : f.maxmemory().equals("0") || f.policy().equals("noeviction") ? 0 : 1;
    aof = f.aofEnabled().isBlank() ? -1 : f.aofEnabled().equals("1") ? 1 : 0;
    rdbSaves = number(f.rdbSaves());
    master = f.role().isBlank() ? -1 : f.role().equals("master") ? 1 : 0;
    replicas = number(f.replicas());
    goodReplicas =
        f.role().isBlank() ? -1 : f.goodReplicas().isBlank() ? -1 : number(f.goodReplicas());
    String said =
        "maxmemory "
            + blank(f.maxmemory())
            + " "
            + blank(f.policy())
            + ", AOF "
            + (aof == 1 ? "on" : aof == 0 ? "off" : "unknown")
            + ", "
            + blank(f.rdbSaves())
            + " RDB snapshots since start, role "
            + blank(f.role())
            + " with "
            + blank(f.replicas())
            + " replicas, min-replicas-to-write "
            + (f.goodReplicas().isBlank() ? "not set" : "set (" + f.goodReplicas() + " good)");
    if (!said.equals(lastFacts)) {
      lastFacts = said;
      if (evicts == 1) {
        log.warn(
            "the Redis node of this group's gate key ({}) may evict the key: every gate of the"
                + " group then waits confirmWithin before it opens; set maxmemory-policy"
                + " noeviction",
            said);
      } else {
        log.info("the Redis node of this group's gate key: {}", said);
      }
    }
  }

  private static long number(String s) {
    try {
      return s.isBlank() ? -1 : Long.parseLong(s);
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static String blank(String s) {
    return s.isBlank() ? "unknown" : s;
  }

  /** 1 when the gate key's node may evict it, 0 when it cannot, -1 when unknown (INFO refused). */
  public int evictsGateKey() {
    return evicts;
  }

  /** 1 when the node appends every write to its AOF, 0 when not, -1 when unknown. */
  public int aofEnabled() {
    return aof;
  }

  /** RDB snapshots since the node started, -1 when unknown. */
  public long rdbSaves() {
    return rdbSaves;
  }

  /** 1 when the node is a master, 0 a replica, -1 unknown. */
  public int master() {
    return master;
  }

  /** Replicas connected to it, -1 unknown. */
  public long replicas() {
    return replicas;
  }

  /** Replicas good for min-replicas-to-write, -1 when that is not set (or unknown). */
  public long goodReplicas() {
    return goodReplicas;
  }

  /** Steps of Redis's clock seen against the agent's own, and the last one's size. */
  public long clockSteps() {
    return clockSteps;
  }

  public long lastClockStepMillis() {
    return lastStepMillis;
  }

  /** How many times another incarnation of Redis answered (restarts, promoted replicas). */
  public long incarnationsSeen() {
    return incarnations;
  }

  /** 1 when Redis answered the agent's last call, else 0. */
  public int up() {
    return failing ? 0 : 1;
  }
}
