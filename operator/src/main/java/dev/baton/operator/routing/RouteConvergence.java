package dev.baton.operator.routing;

import java.time.Duration;

/**
 * Times one group's routing after each leader change: from the promotion to the first time every
 * leader Service lists exactly the new leader. A value: each step returns the timing to keep, and
 * the caller keeps it with the rest of the group's state.
 *
 * @param changedAtNanos when the last leader change was made (System.nanoTime())
 * @param waiting routing has not yet converged since that change
 * @param warned the slow-routing warning was given for that change
 */
public record RouteConvergence(long changedAtNanos, boolean waiting, boolean warned) {

  /** How long routing may take before a Warning Event names the Services that lag. */
  public static final Duration WARN_AFTER = Duration.ofSeconds(10);

  /** No leader change is being timed. */
  public static final RouteConvergence IDLE = new RouteConvergence(0, false, false);

  /**
   * What to report now, and the timing to keep.
   *
   * @param converged routing converged this time, after this long; else null
   * @param slow routing has taken longer than {@link #WARN_AFTER}: warn, once per leader change
   * @param lookAgainIn when to check again without an event (the warning is due), or null
   * @param wasSlow the warning had been given before this step (a convergence is then announced)
   */
  public record Step(
      Duration converged,
      boolean slow,
      Duration lookAgainIn,
      boolean wasSlow,
      RouteConvergence next) {}

  /** A new leader was labeled (or its endpoint written) at this System.nanoTime(). */
  public RouteConvergence leaderChanged(long nanos) {
    return new RouteConvergence(nanos, true, false);
  }

  public Step observe(RouteCheck.State state, long nowNanos) {
    if (!waiting) {
      return new Step(null, false, null, warned, this);
    }
    Duration elapsed = Duration.ofNanos(nowNanos - changedAtNanos);
    RouteConvergence done = new RouteConvergence(changedAtNanos, false, warned);
    switch (state) {
      case NO_SERVICE -> {
        return new Step(null, false, null, warned, done);
      }
      case ROUTED -> {
        return new Step(elapsed, false, null, warned, done);
      }
      default -> {
        if (elapsed.compareTo(WARN_AFTER) >= 0) {
          return new Step(
              null, !warned, null, warned, new RouteConvergence(changedAtNanos, true, true));
        }
        return new Step(null, false, WARN_AFTER.minus(elapsed), warned, this);
      }
    }
  }
}
