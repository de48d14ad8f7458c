package dev.baton.operator.redislock;

import dev.baton.client.LockResult;
import dev.baton.client.LockView;
import java.time.Duration;
import java.util.List;

/**
 * What carrying out one {@link LockStep} did, as {@link LockActuator} returns it: the values
 * written or deleted, the token granted, the problems met. {@link LockReporter} alone turns it into
 * conditions, Events, metrics and status, so the act step writes nothing a reader sees but the lock
 * and the labels.
 */
sealed interface LockOutcome {

  /** The world the next decision sees, before the reconcile reads Redis again. */
  default LockWorld after(LockWorld world) {
    return world;
  }

  /** Whether Redis changed in a way only a new read shows. */
  default boolean readAgain() {
    return true;
  }

  /** A value deleted from Redis, and the token its hold had. */
  record Released(String value, long token) {}

  /** Every value found was released that was still there; the request was taken off the lock. */
  record ForceReleased(List<Released> released) implements LockOutcome {
    @Override
    public LockWorld after(LockWorld world) {
      return world.forceReleased();
    }
  }

  /** The holds of gone pods that were still there, deleted. */
  record Reaped(List<Released> reaped) implements LockOutcome {
    @Override
    public LockWorld after(LockWorld world) {
      return world.reapedDead();
    }
  }

  /** This operator's old grant taken back, its labels first. */
  record Reclaimed(String value) implements LockOutcome {}

  /** A renewal of {@code value}, and Redis's answer, which is read enough. */
  record Renewed(String value, LockResult result) implements LockOutcome {
    @Override
    public LockWorld after(LockWorld world) {
      return world.renewed(result.ok(), result.view(), value);
    }

    @Override
    public boolean readAgain() {
      return false;
    }
  }

  /** The grant taken from pod {@code from} (namespace/name), its label first. */
  record Moved(String value, String from, String because) implements LockOutcome {
    @Override
    public LockWorld after(LockWorld world) {
      return world.moved(from, because);
    }
  }

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
