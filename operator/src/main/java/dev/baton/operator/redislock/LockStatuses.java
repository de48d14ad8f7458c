package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockInstanceStatus;
import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.client.InstanceView;
import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;

/** The fields of a RedisLock's status, as {@link LockReporter} fills them in. */
final class LockStatuses {

  private LockStatuses() {}

  /** The tokens this operator knows of, for the lock's generation. */
  static RedisLockStatus base(RedisLock lock, LockState state) {
    RedisLockStatus s = new RedisLockStatus();
    s.setFencingToken(state.maxToken() > 0 ? state.maxToken() : null);
    s.setReservedToken(state.reserved() > 0 ? state.reserved() : null);
    s.setObservedGeneration(lock.getMetadata().getGeneration());
    return s;
  }

  /** Who holds the lock as the state says, until when, and on which instances. */
  static RedisLockStatus held(
      RedisLock lock,
      LockState state,
      RedisLockStatus old,
      LockSettings settings,
      LockView view,
      long viewAtNanos,
      Instant now) {
    RedisLockStatus s = base(lock, state);
    String holder = state.holderValue();
    s.setHolder(holder == null ? "" : LockValues.holder(holder));
    s.setAcquiredAt(holder == null ? null : state.holder().acquiredAt());
    s.setExpiresAt(holder == null ? null : expiresAt(now, old, viewAtNanos, view, holder));
    s.setInstances(instances(settings, view, holder));
    return s;
  }

  /** No majority answered: the holder as the status said before, the instances as they answered. */
  static RedisLockStatus holderAsBefore(
      RedisLock lock, LockState state, RedisLockStatus old, LockSettings settings, LockView view) {
    RedisLockStatus s = base(lock, state);
    s.setHolder(old.getHolder() == null ? "" : old.getHolder());
    s.setAcquiredAt(old.getAcquiredAt());
    s.setExpiresAt(old.getExpiresAt());
    s.setInstances(instances(settings, view, null));
    return s;
  }

  /** Nothing could be learned (a spec or Secret the operator cannot use): what it said before. */
  static RedisLockStatus asBefore(RedisLock lock, RedisLockStatus old) {
    RedisLockStatus s = new RedisLockStatus();
    s.setHolder(old.getHolder() == null ? "" : old.getHolder());
    s.setFencingToken(old.getFencingToken());
    s.setReservedToken(old.getReservedToken());
    s.setAcquiredAt(old.getAcquiredAt());
    s.setExpiresAt(old.getExpiresAt());
    s.setInstances(old.getInstances());
    s.setObservedGeneration(lock.getMetadata().getGeneration());
    return s;
  }

  /**
   * Now plus Redis's remaining time, to the second. Kept as it was when it moved less than a
   * second, so that a status write means a renewal happened, not that time passed.
   *
   * @param viewAtNanos when the view was read (System.nanoTime)
   */
  static String expiresAt(
      Instant now, RedisLockStatus old, long viewAtNanos, LockView view, String holder) {
    long pttl = holder.equals(view.holder()) ? view.pttlMillis() : -2;
    if (pttl < 0) {
      return pttl == -1 ? null : old.getExpiresAt();
    }
    long age = Duration.ofNanos(System.nanoTime() - viewAtNanos).toMillis();
    Instant at = now.plusMillis(pttl - age).truncatedTo(ChronoUnit.SECONDS);
    if (old.getExpiresAt() != null) {
      try {
        Instant before = Instant.parse(old.getExpiresAt());
        if (Math.abs(Duration.between(before, at).toMillis()) <= 1000) {
          return old.getExpiresAt();
        }
      } catch (RuntimeException unparsable) {
        // replaced below
      }
    }
    return at.toString();
  }

  /** With Redlock, each instance and whether it holds the holder's value (or the leading one). */
  static List<RedisLockInstanceStatus> instances(
      LockSettings settings, LockView view, String holder) {
    if (!settings.isRedlock()) {
      return null;
    }
    String shown = holder != null ? holder : view.mostHeld();
    List<RedisLockInstanceStatus> out = new ArrayList<>();
    for (InstanceView i : view.instances()) {
      out.add(new RedisLockInstanceStatus(i.name(), i.reachable(), i.holds(shown)));
    }
    return out;
  }
}
