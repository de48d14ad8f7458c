package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.operator.kube.Conditions;
import dev.baton.operator.kube.Said;
import java.time.Clock;
import java.time.Duration;

/**
 * One RedisLock reconcile's report, built by {@link LockReporter} from how the reconcile ended,
 * with what the reporter said of the lock before.
 */
final class LockReport {
  final RedisLock lock;
  final LockState before;
  final LockState state;
  final RedisLockStatus old;
  final Conditions conditions;
  Said<Told> said;
  RedisLockStatus status;
  Duration next;

  /** When the view being reported was read (System.nanoTime), for the remaining time. */
  long viewAtNanos = System.nanoTime();

  LockReport(RedisLock lock, LockState before, LockState state, Said<Told> said, Clock clock) {
    this.lock = lock;
    this.before = before;
    this.state = state;
    this.said = said;
    this.old = lock.getStatus() == null ? new RedisLockStatus() : lock.getStatus();
    this.conditions =
        new Conditions(old.getConditions(), lock.getMetadata().getGeneration(), clock);
  }

  String ns() {
    return lock.getMetadata().getNamespace();
  }

  String name() {
    return lock.getMetadata().getName();
  }

  /** What only a lock remembers having told: that no pod may hold it, and the holder known dead. */
  record Told(boolean noCandidates, DeadHolder deadHolder) {
    static final Told NOTHING = new Told(false, DeadHolder.NONE);

    Told noCandidates(boolean told) {
      return new Told(told, deadHolder);
    }

    Told deadHolder(DeadHolder d) {
      return new Told(noCandidates, d);
    }
  }

  /**
   * The holder value whose pod is gone yet still holds the lock, and since when (epoch ms). A dead
   * pod's lock is normally reaped at once, so a time that grows means reaping fails.
   */
  record DeadHolder(String value, long sinceMillis) {
    static final DeadHolder NONE = new DeadHolder(null, 0);

    /**
     * After a look at {@code holder} (null: free), which is {@code dead} or not, at {@code now}.
     */
    DeadHolder next(String holder, boolean dead, long now) {
      if (holder == null || !dead) {
        return NONE;
      }
      return holder.equals(value) ? this : new DeadHolder(holder, now);
    }

    /** How long the holder has been known dead while still holding: 0 for none. */
    long millis(long now) {
      return value == null ? 0 : now - sinceMillis;
    }
  }
}
