package dev.baton.client;

/**
 * One Redis instance's answer about a lock.
 *
 * @param name the instance's name (a Secret name, or whatever the caller called it)
 * @param reachable false when the instance did not answer in time; the other fields are then empty
 * @param ok whether the operation did what it was asked (took, renewed, released, fenced)
 * @param value the value in the lock key after the operation, or null when it is free
 * @param pttlMillis remaining time by this instance's clock: -2 free, -1 no expiry
 * @param counter the token counter (the new token after a successful acquire)
 * @param reserved the token ceiling reserved on this Redis process, -1 when it has none (or the
 *     script did not read it); see {@code reservation.lua}
 * @param unreserved an acquire refused because no reservation covers the next token: the operator
 *     has not reserved tokens on this Redis (a new lock, or Redis restarted or failed over)
 * @param error why the instance was not reachable, for messages; null when it was
 */
public record InstanceView(
    String name,
    boolean reachable,
    boolean ok,
    String value,
    long pttlMillis,
    long counter,
    long reserved,
    boolean unreserved,
    String error) {

  static InstanceView unreachable(String name, String error) {
    return new InstanceView(name, false, false, null, -2, 0, -1, false, error);
  }

  /** Whether this instance holds {@code v} (a null {@code v} holds nothing). */
  public boolean holds(String v) {
    return reachable && v != null && v.equals(value);
  }
}
