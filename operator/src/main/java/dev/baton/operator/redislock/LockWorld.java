package dev.baton.operator.redislock;

import dev.baton.client.LockView;
import dev.baton.operator.pods.Candidate;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;

/**
 * What one step of a RedisLock reconcile knows when it decides: the lock in Redis, the pods, what
 * was asked for, and what this reconcile already did. Immutable: each action yields the next world.
 *
 * @param clusterId this operator's cluster, which its grant values name
 * @param grants the lock has a holder selector: the operator grants it to a pod
 * @param forceRelease release whatever holds it was asked for, and not done yet
 * @param view the lock on every Redis instance
 * @param candidates the pods the holder selector matches (empty without one)
 * @param labeled the pods of the namespace that carry the lock's label or token annotation, as the
 *     cache shows them
 * @param podAlive for each value that names a pod: whether that pod (with that uid) exists
 * @param granted the value of the grant this operator renews, or null
 * @param held the grant the state named when the reconcile began, until this plan moves or
 *     force-releases it (a refused renewal keeps it: that grant was lost, and is told so); null for
 *     none
 * @param renewedRecently that grant was renewed within half a renew interval
 * @param renewedNow the value this reconcile already renewed (or tried to), or null; tried and
 *     refused when it is not {@code granted}
 * @param reaped this reconcile already reaped the locks of dead pods
 * @param movedFrom the pod (namespace/name) this reconcile moved the lock away from, or null
 * @param movedBecause why it moved
 */
record LockWorld(
    String clusterId,
    boolean grants,
    boolean forceRelease,
    LockView view,
    List<LockCandidate> candidates,
    List<Pod> labeled,
    Map<String, Boolean> podAlive,
    String granted,
    LockState.Grant held,
    boolean renewedRecently,
    String renewedNow,
    boolean reaped,
    String movedFrom,
    String movedBecause) {

  /**
   * A pod the holder selector matches, and whether it carries the lock's label now.
   *
   * @param seen the pod as the cache showed it, which the act step labels
   */
  record LockCandidate(Candidate pod, String namespace, boolean carriesLabel, Pod seen) {}

  /** After a move: the lock may not move again in this reconcile. */
  boolean mayMove() {
    return movedFrom == null;
  }

  LockWorld withView(LockView next, Map<String, Boolean> alive) {
    return new LockWorld(
        clusterId,
        grants,
        forceRelease,
        next,
        candidates,
        labeled,
        alive,
        granted,
        held,
        renewedRecently,
        renewedNow,
        reaped,
        movedFrom,
        movedBecause);
  }

  LockWorld forceReleased() {
    return withoutGrant(false, movedFrom, movedBecause);
  }

  LockWorld reapedDead() {
    return new LockWorld(
        clusterId,
        grants,
        forceRelease,
        view,
        candidates,
        labeled,
        podAlive,
        granted,
        held,
        renewedRecently,
        renewedNow,
        true,
        movedFrom,
        movedBecause);
  }

  /**
   * After a renew: the view it answered with when it succeeded. A refused renewal leaves no grant
   * known to be ours, so the grant is not kept (nor labeled) on the strength of the read before it.
   */
  LockWorld renewed(boolean ok, LockView answer, String value) {
    return new LockWorld(
        clusterId,
        grants,
        forceRelease,
        ok ? answer : view,
        candidates,
        labeled,
        podAlive,
        ok ? value : null,
        held,
        ok,
        value,
        reaped,
        movedFrom,
        movedBecause);
  }

  LockWorld moved(String from, String because) {
    return withoutGrant(forceRelease, from, because);
  }

  /**
   * After the grant went (force-released, or moved away): no value of ours is left to renew or to
   * keep, whatever the state named when the reconcile began.
   */
  private LockWorld withoutGrant(boolean forceRelease, String movedFrom, String movedBecause) {
    return new LockWorld(
        clusterId,
        grants,
        forceRelease,
        view,
        candidates,
        labeled,
        podAlive,
        null,
        null,
        false,
        renewedNow,
        reaped,
        movedFrom,
        movedBecause);
  }
}
