package dev.baton.agent.leadership;

import java.time.Duration;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the agent knows of its Redis: when it last answered or failed, and whether the node that
 * keeps the group's gate key may evict it. An evicted key costs a wait, not safety (an absent key
 * is never taken at once), but every gate of the group waits a whole {@code confirmWithin}.
 */
public final class RedisHealth {

  private static final Logger log = LoggerFactory.getLogger(RedisHealth.class);

  private final long unreachableAfterNanos;
  private volatile long lastAnswerNanos = System.nanoTime();
  private volatile long lastFailureNanos = lastAnswerNanos;
  private volatile boolean failing;
  private volatile int evicts = -1;
  private volatile boolean warned;

  RedisHealth(long unreachableAfterNanos) {
    this.unreachableAfterNanos = unreachableAfterNanos;
  }

  void answered(long now) {
    lastAnswerNanos = now;
    failing = false;
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

  /** From {@code INFO memory} of the node that keeps the gate key; blank when not permitted. */
  void memory(String maxmemory, String policy) {
    int now;
    if (maxmemory.isBlank() || policy.isBlank()) {
      now = -1;
    } else {
      now = maxmemory.equals("0") || policy.equals("noeviction") ? 0 : 1;
    }
    if (now == 1 && !warned) {
      warned = true;
      log.warn(
          "the Redis node of this group's gate key has maxmemory {} and maxmemory-policy {}:"
              + " it may evict the key, and every gate of the group then waits confirmWithin"
              + " before it opens; set maxmemory-policy noeviction",
          maxmemory,
          policy);
    }
    evicts = now;
  }

  /** 1 when the gate key's node may evict it, 0 when it cannot, -1 when unknown (INFO refused). */
  public int evictsGateKey() {
    return evicts;
  }

  /** 1 when Redis answered the agent's last call, else 0. */
  public int up() {
    return failing ? 0 : 1;
  }
}
