package dev.baton.operator.redislock;

import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import dev.baton.operator.api.v1alpha1.RedisLockStatus;

/**
 * What the operator remembers about one lock between reconciles. The highest token is rebuilt from
 * the status after a restart; a grant is re-adopted from Redis, where its value names the pod.
 */
final class LockState {

  /** The value this operator granted (or adopted) and renews, or null. */
  String granted;

  LockValues.PodRef grantedPod;

  long grantedToken;

  long lastRenewNanos;

  /** Redis as the last renew saw it: reused while the renewal is fresh. */
  LockView lastView;

  /** Highest token seen for this lock: the floor for the next acquisition. */
  long maxToken;

  /** Tokens reserved in the status up to this one (docs/design.md, "Terms and tokens never repeat"). */
  long reserved;

  /** The size of the last reservation, and when it was made (System.nanoTime, 0: never). */
  long tokenBlock = RedisLockReconciler.MIN_TOKEN_RESERVATION;

  long lastReservationNanos;

  /** The holder value last observed, and since when (RFC 3339). */
  String holderValue;

  String acquiredAt;

  /** namespace/name of the pod named by the holder value, for mapping pod events to this lock. */
  volatile String holderPod;

  /** The status written before a restart, to keep acquiredAt of a holder that did not change. */
  String statusHolder;

  String statusAcquiredAt;

  boolean redisDown;

  String lastProblem;

  boolean noCandidatesReported;

  int failures;

  static LockState from(RedisLockStatus status) {
    LockState s = new LockState();
    if (status != null) {
      s.maxToken = status.getFencingToken() == null ? 0 : status.getFencingToken();
      s.reserved = status.getReservedToken() == null ? 0 : status.getReservedToken();
      s.statusHolder = status.getHolder();
      s.statusAcquiredAt = status.getAcquiredAt();
    }
    return s;
  }

  void grant(String value, LockValues.PodRef pod, long token, long nowNanos) {
    granted = value;
    grantedPod = pod;
    grantedToken = token;
    lastRenewNanos = nowNanos;
    maxToken = Math.max(maxToken, token);
  }

  void forgetGrant() {
    granted = null;
    grantedPod = null;
    grantedToken = 0;
    lastView = null;
  }
}
