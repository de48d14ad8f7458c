package dev.baton.operator.lease;

import dev.baton.client.ElectionKeys;

/**
 * Election leases in Redis. Every method is one atomic script and one round trip. Methods throw
 * {@link RedisUnavailableException} when Redis cannot be reached, so callers can fail static.
 */
public interface LeaseStore {

  /** Reads the holder, its remaining time and the term counter. */
  Observation observe(ElectionKeys keys);

  /** Extends the lease if {@code record} still holds it; otherwise reports who does. */
  Observation renew(ElectionKeys keys, String record, long ttlMillis);

  /**
   * Renews many leases in one round trip, without blocking the caller. The answer lists, in order,
   * null for each lease renewed and the current holder ("" when free) for each that was not; it
   * completes with a {@link RedisUnavailableException} when Redis did not answer.
   */
  java.util.concurrent.CompletionStage<java.util.List<String>> renewAll(
      java.util.List<Renewal> renewals);

  /** One lease to renew: the caller's record and the ttl to set. */
  record Renewal(ElectionKeys keys, String record, long ttlMillis) {}

  /**
   * Takes the lease if it is free or held by exactly {@code expected}, with the next term, when a
   * reservation on this Redis covers that term and is exactly {@code reserved} (else {@link
   * Acquisition#unreserved()}).
   *
   * @param reserved the highest term reservation the group's status records (0: none), or -1 for a
   *     caller without one, which any reservation here serves. A Redis holding an older one may be
   *     a replaced master serving before it learns it was replaced, and another process may have
   *     issued terms up to this one since; a Redis holding a newer one holds a reservation this
   *     group's status does not cover (another resource's, which had the key before, or another
   *     cluster's): terms issued under it could repeat after Redis lost its data
   */
  Acquisition acquire(
      ElectionKeys keys, String expected, String recordPrefix, long ttlMillis, long reserved);

  /**
   * {@link #acquire(ElectionKeys, String, String, long, long)} by a caller that knows no
   * reservation.
   */
  default Acquisition acquire(
      ElectionKeys keys, String expected, String recordPrefix, long ttlMillis) {
    return acquire(keys, expected, recordPrefix, ttlMillis, -1);
  }

  /**
   * Reserves terms up to {@code ceiling}, which the caller has already recorded durably; a Redis
   * without a reservation of its own (restarted, or a promoted replica), or whose own is below
   * {@code floor}, first has its counter raised to {@code floor}. Returns the ceiling in force.
   */
  long reserve(ElectionKeys keys, long floor, long ceiling);

  /** Deletes the lease if {@code record} holds it (compare-and-delete). */
  boolean release(ElectionKeys keys, String record);

  /**
   * What Redis said about a lease.
   *
   * @param renewed true when the caller's record was the holder and its ttl was extended
   * @param holder the holder record, or null when the lease is free
   * @param pttlMillis remaining time by Redis's clock (-2 when free)
   * @param term the term counter, or -1 when not read
   */
  record Observation(boolean renewed, String holder, long pttlMillis, long term) {}

  /**
   * The outcome of an acquire.
   *
   * @param acquired true when the caller now holds the lease
   * @param holder the holder record after the call, or null when the lease is free
   * @param term the new term when acquired, else -1
   * @param unreservedCounter when the lease was not taken for want of a term reservation: the term
   *     counter, or the reservation in force when that is higher (reserve above it and try again);
   *     else -1
   */
  record Acquisition(boolean acquired, String holder, long term, long unreservedCounter) {
    public boolean unreserved() {
      return unreservedCounter >= 0;
    }
  }
}
