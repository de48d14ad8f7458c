package dev.baton.operator.metrics;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether the reconcile loop still makes progress. Every reconcile says when the next is due (a
 * resync of up to ten minutes for a quiet group, sooner otherwise); when no reconcile finished for
 * five of the longest such intervals (and at least a minute), the loop is stuck and /healthz says
 * so.
 */
public final class Liveness {

  private static final Duration MIN_SILENCE = Duration.ofMinutes(1);

  private final AtomicLong lastProgress = new AtomicLong(System.nanoTime());
  private final AtomicLong longestInterval = new AtomicLong(0);

  /** Called at the end of every reconcile, with the interval after which the next is due. */
  public void progressed(Duration nextDue) {
    lastProgress.set(System.nanoTime());
    if (nextDue != null) {
      longestInterval.accumulateAndGet(nextDue.toNanos(), Math::max);
    }
  }

  public HttpEndpoints.Check check() {
    long silentNanos = System.nanoTime() - lastProgress.get();
    long allowed = Math.max(MIN_SILENCE.toNanos(), 5 * longestInterval.get());
    boolean expectingWork = longestInterval.get() > 0;
    if (expectingWork && silentNanos > allowed) {
      return new HttpEndpoints.Check(
          false, "no reconcile finished for " + Duration.ofNanos(silentNanos).toSeconds() + " s");
    }
    return new HttpEndpoints.Check(
        true, "alive; last reconcile " + Duration.ofNanos(silentNanos).toMillis() + " ms ago");
  }
}
