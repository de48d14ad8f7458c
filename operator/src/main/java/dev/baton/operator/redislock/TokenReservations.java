package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.client.InstanceView;
import dev.baton.client.LockKeys;
import dev.baton.client.LockView;
import dev.baton.operator.kube.Conditions;
import dev.baton.operator.kube.StatusWriter;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reserves blocks of fencing tokens: first in the RedisLock's status (durable, guarded by
 * resourceVersion so the reservation never goes down), only then on every Redis instance. An
 * instance without a reservation of its own first has its counter raised to the reservation the
 * status held before, above every token ever issued (docs/design.md, "Terms and tokens never
 * repeat"). Applications' acquires wait for it, so tokens are reserved as soon as the lock exists,
 * and again ahead of need.
 */
final class TokenReservations {

  private static final Logger log = LoggerFactory.getLogger(TokenReservations.class);

  /** Tokens reserved per status write at first, and at most: the block doubles when busy. */
  static final long MIN_BLOCK = 1_000;

  static final long MAX_BLOCK = 1L << 30;
  private static final Duration BUSY = Duration.ofMinutes(1);

  /** One lock's reservation as this operator knows it. */
  static final class Reserved {
    /** Tokens are reserved in the status up to this one. */
    long upTo;

    long block = MIN_BLOCK;

    /** When the last reservation was made (System.nanoTime), 0 for never. */
    long lastAtNanos;
  }

  private final StatusWriter statusWriter;

  TokenReservations(StatusWriter statusWriter) {
    this.statusWriter = statusWriter;
  }

  /** Whether an instance has no reservation, or less than half a block left before its ceiling. */
  static boolean needed(LockView view, Reserved reserved) {
    return view.instances().stream()
        .anyMatch(i -> i.reachable() && i.reserved() - i.counter() < reserved.block / 2);
  }

  /** Whether an acquire was refused for want of a reservation somewhere. */
  static boolean refused(LockView view) {
    return view.instances().stream().anyMatch(InstanceView::unreserved);
  }

  void reserve(RedisLock lock, LockState state, LockRedis store, LockKeys keys, LockView view) {
    Reserved r = state.reserved;
    long now = System.nanoTime();
    r.block =
        r.lastAtNanos != 0 && now - r.lastAtNanos < BUSY.toNanos()
            ? Math.min(r.block * 2, MAX_BLOCK)
            : MIN_BLOCK;
    r.lastAtNanos = now;
    long known = Math.max(r.upTo, state.maxToken);
    RedisLockStatus raise = new RedisLockStatus();
    raise.setReservedToken(Math.max(known, view.maxCounter()) + r.block);
    StatusWriter.Written<RedisLockStatus> written =
        statusWriter.write(lock, raise, TokenReservations::raise);
    if (written == null) {
      return;
    }
    long ceiling = reserved(written.after());
    r.upTo = Math.max(r.upTo, ceiling);
    store.reserve(keys, Math.max(known, reserved(written.before())), ceiling);
    log.info(
        "RedisLock {}/{}: reserved tokens up to {}",
        lock.getMetadata().getNamespace(),
        lock.getMetadata().getName(),
        ceiling);
  }

  /**
   * The highest reservation this operator knows was recorded: an instance whose own is lower
   * refuses to issue (it may be a replaced master that has not learned it yet), so the operator
   * reserves.
   */
  static long known(RedisLock lock, LockState state) {
    return Math.max(state.reserved.upTo, reserved(lock.getStatus()));
  }

  static long reserved(RedisLockStatus s) {
    return s == null || s.getReservedToken() == null ? 0 : s.getReservedToken();
  }

  /** The status on the server with its reservation raised to the one asked for, nothing else. */
  private static RedisLockStatus raise(RedisLockStatus current, RedisLockStatus asked) {
    RedisLockStatus out = Serialization.clone(current);
    out.setReservedToken(Math.max(reserved(current), reserved(asked)));
    return out;
  }

  /** The status to write, with a reservation never below the one on the server. */
  static RedisLockStatus keep(RedisLockStatus current, RedisLockStatus next) {
    if (reserved(current) > reserved(next)) {
      next.setReservedToken(current.getReservedToken());
    }
    next.setConditions(Conditions.sinceAsOnServer(current.getConditions(), next.getConditions()));
    return next;
  }
}
