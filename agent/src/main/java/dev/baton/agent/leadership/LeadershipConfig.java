package dev.baton.agent.leadership;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * What the leadership decision ({@link LeadershipDecision}) is configured with.
 *
 * @param ttlNanos confirmWithin: how long a hold counts, how long a taker watches a stale one
 * @param marginNanos how much earlier than a hold's ttl its gates close (clock-rate slack)
 * @param renewEveryNanos how often a hold is renewed
 * @param takeEveryNanos how often a pod confirmed leader without a hold tries to take the key
 * @param holderEveryNanos how often a follower reads who holds the key
 * @param redisFactsEveryNanos how often the key's node is asked what it does with the key
 * @param withKey the agent has Redis: its gates open only on a proven, live hold
 * @param nonce this process's own, so that its hold names are never another's
 */
record LeadershipConfig(
    String namespace,
    String pod,
    String roleLabel,
    long ttlNanos,
    long marginNanos,
    long renewEveryNanos,
    long takeEveryNanos,
    long holderEveryNanos,
    long redisFactsEveryNanos,
    boolean withKey,
    String nonce) {

  static LeadershipConfig of(
      String namespace,
      String pod,
      String roleLabel,
      Duration confirmWithin,
      boolean withKey,
      String nonce) {
    long ttl = confirmWithin.toNanos();
    return new LeadershipConfig(
        namespace,
        pod,
        roleLabel,
        ttl,
        Math.min(TimeUnit.MILLISECONDS.toNanos(100), ttl / 10),
        ttl / 4,
        TimeUnit.MILLISECONDS.toNanos(20),
        TimeUnit.SECONDS.toNanos(2),
        TimeUnit.SECONDS.toNanos(5),
        withKey,
        nonce);
  }

  /** A hold's name, never given to another call: this process's nonce and its {@code n}. */
  String holdName(long term, long n, String ip) {
    return HoldValue.hold(namespace, pod, term, nonce, n, ip);
  }
}
