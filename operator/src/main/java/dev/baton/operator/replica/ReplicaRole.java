package dev.baton.operator.replica;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;

/**
 * Whether this operator replica is the active one and may act: write to the API server, change
 * Redis. A standby replica keeps its caches warm and acts on nothing (docs/design.md, "The
 * operator's own failover").
 */
public interface ReplicaRole extends AutoCloseable {

  /**
   * How soon a reconcile that came while this replica held its role but could not prove it (a
   * renewal running late) looks again: dropping it would lose the event, since nothing hands it
   * over again unless the role is lost and won back.
   */
  Duration LATE_RENEWAL_RETRY = Duration.ofMillis(100);

  /** True only while this replica can prove it is the active one. */
  boolean mayAct();

  /**
   * True from becoming active until the role is lost or closed, also while a late renewal keeps
   * {@link #mayAct()} false for a moment: what the controllers filter their events on, so that no
   * event of the active replica is dropped in such a moment.
   */
  boolean holdsRole();

  /**
   * What a reconcile answers when {@link #mayAct()} is false: nothing, and while this replica still
   * holds its role, a look again after {@link #LATE_RENEWAL_RETRY}.
   */
  default <P extends HasMetadata> UpdateControl<P> notNow() {
    return holdsRole()
        ? UpdateControl.<P>noUpdate().rescheduleAfter(LATE_RENEWAL_RETRY)
        : UpdateControl.noUpdate();
  }

  /** The same for a cleanup: the finalizer stays, for the active replica to remove. */
  default DeleteControl notNowForCleanup() {
    return holdsRole()
        ? DeleteControl.noFinalizerRemoval().rescheduleAfter(LATE_RENEWAL_RETRY.toMillis())
        : DeleteControl.noFinalizerRemoval();
  }

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
