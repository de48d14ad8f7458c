package dev.baton.operator.redislock;

import dev.baton.client.LockResult;
import dev.baton.client.LockView;
import dev.baton.operator.fencing.Reservations;
import java.time.Duration;
import java.util.List;

/**
 * What carrying out one {@link LockStep} did, as {@link LockActuator} returns it: the values
 * written or deleted, the token granted, the tokens reserved. {@link LockReporter} alone turns it
 * into conditions, Events, metrics and status, and {@link LockState#record} into what the operator
 * remembers, so the act step writes nothing a reader sees but the lock and the labels.
 */
sealed interface LockOutcome {

  /** Tokens reserved up to {@code ceiling} with {@code block}, in the status and then in Redis. */
  record Reserved(long ceiling, Reservations.Block block) implements LockOutcome {}

  /** A value deleted from Redis, and the token its hold had. */
  record Released(String value, long token) {}

  /** Every value found was released that was still there; the request was taken off the lock. */
  record ForceReleased(List<Released> released) implements LockOutcome {}

  /** The holds of gone pods that were still there, deleted. */
  record Reaped(List<Released> reaped) implements LockOutcome {}

  /** This operator's old grant taken back, its labels first. */
  record Reclaimed(String value) implements LockOutcome {}

  /** A renewal of {@code value} sent at {@code startedNanos}, and Redis's answer. */
  record Renewed(String value, LockResult result, long startedNanos) implements LockOutcome {}

  /** The grant taken from pod {@code from} (namespace/name), its label first. */
  record Moved(String value, String from, String because) implements LockOutcome {}

  /** The outcome of a reconcile's last step: the lock as last seen, and when to look again. */
  sealed interface Last extends LockOutcome {
    LockView view();

    Duration next();
  }

  /** The grant stays with {@code pod}, labeled; {@code adopted}: this operator had not known it. */
  record Kept(String value, String pod, long token, boolean adopted, LockView view, Duration next)
      implements Last {}

  /** The lock taken for {@code pod} with {@code token}, then the pod labeled. */
  record Granted(
      String value,
      String pod,
      long token,
      String movedFrom,
      String because,
      LockView view,
      Duration next)
      implements Last {}

  /** The acquire was refused: someone took the lock since it was read, or a Redlock race lost. */
  record Refused(LockView view, Duration next) implements Last {}

  /** No pod may hold the lock; none is labeled. */
  record NoneEligible(String movedFrom, String because, LockView view, Duration next)
      implements Last {}

  /**
   * Another holder has the lock and no pod here is labeled; {@code lostFrom} names the pod of this
   * operator's grant it replaced, or is null.
   */
  record StoodAside(String holder, long token, String lostFrom, LockView view, Duration next)
      implements Last {}

  /** Applications take the lock: {@code holder} has it (null: free), no pod is labeled. */
  record Observed(String holder, long token, LockView view, Duration next) implements Last {}

  /** The lock is changing hands under us. */
  record Waited(LockView view, Duration next) implements Last {}
}
