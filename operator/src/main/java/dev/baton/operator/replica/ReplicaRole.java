package dev.baton.operator.replica;

/**
 * Whether this operator replica is the active one and may act: write to the API server, change
 * Redis. A standby replica keeps its caches warm and acts on nothing (docs/design.md, "The
 * operator's own failover").
 */
public interface ReplicaRole extends AutoCloseable {

  /** True only while this replica can prove it is the active one. */
  boolean mayAct();

  /** A line for /readyz and logs: active, standby and why. */
  String describe();

  /**
   * Starts deciding; calls {@code onActive} once this replica becomes active, and {@code onLost}
   * when it stops being active without being asked to (after {@link #mayAct()} turned false).
   */
  void start(Runnable onActive, Runnable onLost);

  /** Stops acting at once and, when active, hands over to a standby without waiting. */
  @Override
  void close();
}
