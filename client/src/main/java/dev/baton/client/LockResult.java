package dev.baton.client;

/**
 * The outcome of taking, renewing or releasing a lock.
 *
 * @param ok taken / renewed on a majority within the validity time / released somewhere
 * @param token the fencing token of the caller's hold (acquire and renew), else 0
 * @param validityMillis how long the hold is safe to use from the start of the call, by the
 *     caller's monotonic clock (the ttl minus the time the call took minus clock drift); 0 when not
 *     ok
 * @param view the lock on every instance after the call
 */
public record LockResult(boolean ok, long token, long validityMillis, LockView view) {}
