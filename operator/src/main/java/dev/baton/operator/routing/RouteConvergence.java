package dev.baton.operator.routing;

import java.time.Duration;

/**
 * Times one group's routing after each leader change: from the promotion to the first time every
 * leader Service lists exactly the new leader. Not thread-safe: one reconcile of a group at a time.
 */
public final class RouteConvergence {

  /** How long routing may take before a Warning Event names the Services that lag. */
  public static final Duration WARN_AFTER = Duration.ofSeconds(10);

  /**
   * What to report now.
   *
   * @param converged routing converged this time, after this long; else null
   * @param slow routing has taken longer than {@link #WARN_AFTER}: warn, once per leader change
   * @param lookAgainIn when to check again without an event (the warning is due), or null
   */
  public record Step(Duration converged, boolean slow, Duration lookAgainIn) {}

  private long changedAtNanos;
  private boolean waiting;
  private boolean warned;

  /** A new leader was labeled (or its endpoint written) at this System.nanoTime(). */
  public void leaderChanged(long nanos) {
    changedAtNanos = nanos;
    waiting = true;
    warned = false;
  }

  public boolean warned() {
    return warned;
  }

  public Step observe(RouteCheck.State state, long nowNanos) {
    if (!waiting) {
      return new Step(null, false, null);
    }
    Duration elapsed = Duration.ofNanos(nowNanos - changedAtNanos);
    switch (state) {
      case NO_SERVICE -> {
        waiting = false;
        return new Step(null, false, null);
      }
      case ROUTED -> {
        waiting = false;
        return new Step(elapsed, false, null);
      }
      default -> {
        if (elapsed.compareTo(WARN_AFTER) >= 0) {
          boolean slow = !warned;
          warned = true;
          return new Step(null, slow, null);
        }
        return new Step(null, false, WARN_AFTER.minus(elapsed));
      }
    }
  }
}
