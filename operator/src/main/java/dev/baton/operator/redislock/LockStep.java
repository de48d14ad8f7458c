package dev.baton.operator.redislock;

import dev.baton.client.LockValues;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/** One step of a RedisLock reconcile's plan, as {@link LockDecision} plans it. */
sealed interface LockStep {

  /** Whether the plan ends with this step (the others change Redis, and a step follows). */
  default boolean last() {
    return true;
  }

  /**
   * Tokens reserved, in the status first, then on every instance (docs/design.md, "Terms and tokens
   * never repeat"): the read showed less than half a block left, or none.
   */
  record Reserve() implements LockStep {
    @Override
    public boolean last() {
      return false;
    }
  }

  /** Asked for: unlabel every pod, then delete every value found, each compared before. */
  record ForceRelease(List<String> values) implements LockStep {
    @Override
    public boolean last() {
      return false;
    }
  }

  /** Delete the locks of pods that are gone, each compared before, without waiting for a ttl. */
  record Reap(List<String> values) implements LockStep {
    @Override
    public boolean last() {
      return false;
    }
  }

  /** No holder selector any more: take back this operator's old grant, labels first. */
  record Reclaim(String value) implements LockStep {
    @Override
    public boolean last() {
      return false;
    }
  }

  /**
   * Renew (or adopt, or win back instances of) this operator's grant; the plan goes on with the
   * steps after it when Redis takes the renewal, and with {@code ifRefused} instead when it does
   * not.
   */
  record Renew(String value, long token, List<LockStep> ifRefused) implements LockStep {
    Renew(String value, long token) {
      this(value, token, List.of());
    }

    Renew orElse(List<LockStep> steps) {
      return new Renew(value, token, List.copyOf(steps));
    }

    @Override
    public boolean last() {
      return false;
    }
  }

  /** The grant's pod may not hold it any more: its label off, then the grant deleted. */
  record Move(String value, LockValues.PodRef from, String because) implements LockStep {
    @Override
    public boolean last() {
      return false;
    }
  }

  /**
   * Applications take the lock: report who holds it (null: free), no pod carries the label.
   *
   * @param unlabel a pod carries the label: every pod the API server lists with it is cleared
   */
  record Report(String holder, boolean unlabel) implements LockStep {}

  /**
   * The grant stays with its pod: that pod carries the label and {@code token}, no other does.
   *
   * @param adopted the grant is not the one the state named (a restart, another replica's): told
   * @param stale pods whose label comes off first, as the cache showed them
   */
  record Keep(
      LockWorld.LockCandidate pod, String value, long token, boolean adopted, List<Pod> stale)
      implements LockStep {}

  /** Take the lock for this pod, then label it. */
  record Grant(LockWorld.LockCandidate pod, String movedFrom, String because) implements LockStep {}

  /** Nobody may hold it: these pods' labels come off, as the cache showed them. */
  record NoCandidates(String movedFrom, String because, List<Pod> unlabel) implements LockStep {}

  /**
   * Held by an application or another cluster: no pod here carries the label.
   *
   * @param lostFrom the pod of the grant the state named, now lost, or null; then every pod the API
   *     server lists with the label is cleared, since one may have been labeled a moment ago
   * @param unlabel otherwise, the pods whose label comes off, as the cache showed them
   */
  record StandAside(String holder, String lostFrom, List<Pod> unlabel) implements LockStep {}

  /** The lock is changing hands under us: look again in a moment. */
  record Wait() implements LockStep {}
}
