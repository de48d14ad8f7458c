package dev.baton.operator.metrics;

import java.util.function.Consumer;

/**
 * Stamps of the steps between a pod event and the writes a LeaderGroup's reconcile makes for it
 * (docs/design.md, "The failover path"), for a benchmark or a test running the operator in its own
 * process: where a failover's time goes. Off unless a sink is set; then each step costs one
 * volatile read and, when on, one call of the sink on the thread that took the step.
 */
public final class FailoverTrace {

  /** The steps, in the order a failover takes them. */
  public enum Step {
    /** The pod informer handed a pod event concerning the group to its controller. */
    POD_EVENT,
    /** The group's reconcile began on a reconciler thread. */
    RECONCILE_STARTED,
    /** The lease read from Redis, sent and answered. */
    LEASE_READ_SENT,
    LEASE_READ_ANSWERED,
    /** The lease taken for the new leader in Redis, sent and answered. */
    LEASE_ACQUIRE_SENT,
    LEASE_ACQUIRE_ANSWERED,
    /** A pod's labels written (detail: pod and role), sent and answered. */
    LABEL_SENT,
    LABEL_ANSWERED,
    /** The group's status written, sent and answered. */
    STATUS_SENT,
    STATUS_ANSWERED,
    /** The reconcile returned to JOSDK. */
    RECONCILE_ENDED
  }

  /**
   * One step: when (System.nanoTime), which, for which group ("namespace/name"), and what it
   * concerned (a pod and a role, or empty).
   */
  public record Stamp(long nanos, Step step, String group, String detail) {}

  private static volatile Consumer<Stamp> sink;

  private FailoverTrace() {}

  /** Sends every stamp from now on to {@code to}; null stops the trace. */
  public static void to(Consumer<Stamp> to) {
    sink = to;
  }

  /** Stamps a step of {@code namespace/name}'s reconcile, now. */
  public static void stamp(Step step, String namespace, String name, String detail) {
    Consumer<Stamp> s = sink;
    if (s != null) {
      s.accept(new Stamp(System.nanoTime(), step, namespace + "/" + name, detail));
    }
  }
}
