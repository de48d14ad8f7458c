package dev.baton.client;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A lock this process holds, with its fencing token: pass the token to whatever the lock protects,
 * so a holder that lost the lock (paused past its ttl) is refused there. Renew before the validity
 * runs out; release when done (or close it: try-with-resources).
 */
public final class LockLease implements AutoCloseable {

  private final LockStore store;
  private final LockKeys keys;
  private final Duration ttl;
  private final String value;
  private final long token;
  private volatile long validUntilNanos;
  private volatile boolean released;

  LockLease(
      LockStore store,
      LockKeys keys,
      Duration ttl,
      String value,
      long token,
      long validUntilNanos) {
    this.store = store;
    this.keys = keys;
    this.ttl = ttl;
    this.value = value;
    this.token = token;
    this.validUntilNanos = validUntilNanos;
  }

  /** The fencing token: strictly greater than the token of every earlier hold of this lock. */
  public long token() {
    return token;
  }

  /** The exact value stored in Redis for this hold. */
  public String value() {
    return value;
  }

  public String key() {
    return keys.key();
  }

  /** How long each acquire or renew holds the lock. */
  public Duration ttl() {
    return ttl;
  }

  /**
   * Whether the hold is still safe to use by this process's monotonic clock: the time of the last
   * successful acquire or renew plus its validity. False once released.
   */
  public boolean isValid() {
    return !released && System.nanoTime() - validUntilNanos < 0;
  }

  /**
   * How much longer the hold is safe to use by this process's monotonic clock (see {@link
   * #isValid()}); zero once that time has passed or the hold was released.
   */
  public Duration remainingValidity() {
    long left = validUntilNanos - System.nanoTime();
    return released || left <= 0 ? Duration.ZERO : Duration.ofNanos(left);
  }

  /** Extends the hold by the ttl; false when it was lost (taken over after expiry, or released). */
  public boolean renew() {
    if (released) {
      return false;
    }
    long start = System.nanoTime();
    LockResult r = store.renew(keys, value, ttl, token);
    if (r.ok()) {
      validUntilNanos = start + TimeUnit.MILLISECONDS.toNanos(r.validityMillis());
    }
    return r.ok();
  }

  /** Deletes the lock if this hold still owns it (compare-and-delete); never touches another's. */
  public boolean release() {
    if (released) {
      return false;
    }
    released = true;
    return store.release(keys, value).ok();
  }

  @Override
  public void close() {
    release();
  }

  @Override
  public String toString() {
    return "LockLease{" + keys.key() + ", token " + token + "}";
  }
}
