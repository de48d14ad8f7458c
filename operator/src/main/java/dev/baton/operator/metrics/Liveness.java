package dev.baton.operator.metrics;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * Whether the reconcile loop still makes progress. Every reconcile of a resource says when the next
 * one is due (a resync of up to ten minutes for a quiet group, sooner otherwise). The loop is stuck
 * when some resource's reconcile is overdue by four of its own intervals (and at least a minute);
 * /healthz then says which. A deleted resource is forgotten: an operator with nothing to do, or
 * whose last group was deleted an hour ago, is alive, not stuck.
 */
public final class Liveness {

  private static final Duration MIN_GRACE = Duration.ofMinutes(1);
  private static final int GRACE_INTERVALS = 4;

  /** Per resource, when its next reconcile is overdue, and the interval it was given. */
  private record Expected(long overdueAtNanos, long intervalNanos) {}

  private final Map<String, Expected> expected = new ConcurrentHashMap<>();
  private final LongSupplier nanoTime;

  public Liveness() {
    this(System::nanoTime);
  }

  /** With a clock of its own, so tests can let an hour pass. */
  public Liveness(LongSupplier nanoTime) {
    this.nanoTime = nanoTime;
  }

  /**
   * Called at the end of every reconcile of {@code resource} (kind namespace/name), with the
   * interval after which the next is due; null: nothing is due until an event comes.
   */
  public void progressed(String resource, Duration nextDue) {
    if (nextDue == null) {
      expected.remove(resource);
      return;
    }
    long interval = nextDue.toNanos();
    long grace = Math.max(MIN_GRACE.toNanos(), GRACE_INTERVALS * interval);
    expected.put(resource, new Expected(nanoTime.getAsLong() + interval + grace, interval));
  }

  /** The resource was deleted: no reconcile of it is expected any more. */
  public void forget(String resource) {
    expected.remove(resource);
  }

  public HttpEndpoints.Check check() {
    return checkAt(nanoTime.getAsLong());
  }

  /** The answer /healthz would give at {@code now} (this clock's nanoseconds). */
  public HttpEndpoints.Check checkAt(long now) {
    String worst = null;
    long worstLateNanos = 0;
    for (Map.Entry<String, Expected> e : expected.entrySet()) {
      long late = now - e.getValue().overdueAtNanos();
      if (late > worstLateNanos) {
        worst = e.getKey();
        worstLateNanos = late;
      }
    }
    if (worst != null) {
      return new HttpEndpoints.Check(
          false,
          "no reconcile of "
              + worst
              + " finished although one was due "
              + Duration.ofNanos(worstLateNanos + graceOf(worst)).toSeconds()
              + " s ago");
    }
    return new HttpEndpoints.Check(true, "alive; " + expected.size() + " resources on schedule");
  }

  private long graceOf(String resource) {
    Expected e = expected.get(resource);
    return e == null ? 0 : Math.max(MIN_GRACE.toNanos(), GRACE_INTERVALS * e.intervalNanos());
  }
}
