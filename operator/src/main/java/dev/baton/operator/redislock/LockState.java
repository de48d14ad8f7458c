package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.client.LockValues;
import dev.baton.client.LockView;

/**
 * What the operator remembers about one lock between reconciles. The highest token and the token
 * reservation are rebuilt from the status after a restart; a grant is re-adopted from Redis, where
 * its value names the pod.
 */
final class LockState {

  /**
   * A grant this operator made (or adopted) and renews.
   *
   * @param renewedAtNanos when it was last taken or renewed (System.nanoTime)
   * @param view Redis as that renewal saw it: reused while the renewal is fresh
   */
  record Grant(
      String value, LockValues.PodRef pod, long token, long renewedAtNanos, LockView view) {}

  /** The holder as last reported: its value, and since when it holds (RFC 3339). */
  record Holder(String value, String acquiredAt) {}

  /** The holder as the status showed it before a restart (namespace/name or holder id). */
  record Shown(String holder, String acquiredAt) {}

  Grant grant;

  /** The holder last observed, or null when the lock was free. */
  Holder holder;

  /**
   * The holder in the status written before a restart: its acquiredAt is kept if it still holds.
   */
  Shown restored;

  /** namespace/name of the pod named by the holder value, for mapping pod events to this lock. */
  volatile String holderPod;

  /** Highest token seen for this lock: the floor for the next acquisition. */
  long maxToken;

  final TokenReservations.Reserved reserved = new TokenReservations.Reserved();

  boolean redisDown;

  /** The last problem reported as an Event, so it is not reported again on every retry. */
  String lastProblem;

  boolean noCandidatesReported;

  /** The holder value whose pod is gone yet still holds the lock, and since when (epoch ms). */
  String deadHolder;

  long deadHolderSinceMillis;

  /**
   * How long the current holder has been known dead while still holding: 0 for a live holder or a
   * free lock. A dead pod's lock is normally reaped at once, so a value that grows means reaping
   * fails.
   */
  long deadHolderMillis(String holder, boolean dead, long nowMillis) {
    if (holder == null || !dead) {
      deadHolder = null;
      deadHolderSinceMillis = 0;
      return 0;
    }
    if (!holder.equals(deadHolder)) {
      deadHolder = holder;
      deadHolderSinceMillis = nowMillis;
    }
    return nowMillis - deadHolderSinceMillis;
  }

  static LockState from(RedisLockStatus status) {
    LockState s = new LockState();
    if (status != null) {
      s.maxToken = status.getFencingToken() == null ? 0 : status.getFencingToken();
      s.reserved.upTo = status.getReservedToken() == null ? 0 : status.getReservedToken();
      if (status.getHolder() != null && !status.getHolder().isEmpty()) {
        s.restored = new Shown(status.getHolder(), status.getAcquiredAt());
      }
    }
    return s;
  }

  void grant(String value, LockValues.PodRef pod, long token, long nowNanos, LockView view) {
    grant = new Grant(value, pod, token, nowNanos, view);
    maxToken = Math.max(maxToken, token);
  }

  /** Redis did not answer: the view of the last renewal is no longer worth reusing. */
  void forgetView() {
    if (grant != null) {
      grant = new Grant(grant.value(), grant.pod(), grant.token(), grant.renewedAtNanos(), null);
    }
  }

  String grantedValue() {
    return grant == null ? null : grant.value();
  }
}
