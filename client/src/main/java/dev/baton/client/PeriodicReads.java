package dev.baton.client;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * {@link PodWatch}'s periodic reads of its pod: each read schedules the next at the pace the watch
 * then asks for, and a watch that breaks brings the next read forward (never puts it off).
 */
final class PeriodicReads {

  private final ScheduledExecutorService threads;
  private final Runnable read;
  private final LongSupplier everyNanos;
  // Guarded by this.
  private ScheduledFuture<?> next;
  private long nextAt;
  private boolean closed;

  /**
   * @param everyNanos the pace now, asked after each read
   */
  PeriodicReads(ScheduledExecutorService threads, Runnable read, LongSupplier everyNanos) {
    this.threads = threads;
    this.read = read;
    this.everyNanos = everyNanos;
  }

  /** The next read in at most {@code delayNanos}. */
  void within(long delayNanos) {
    long at = System.nanoTime() + delayNanos;
    synchronized (this) {
      if (closed) {
        return;
      }
      if (next != null && !next.isDone()) {
        if (nextAt - at <= 0) {
          return;
        }
        next.cancel(false);
      }
      try {
        next = threads.schedule(this::run, delayNanos, TimeUnit.NANOSECONDS);
        nextAt = at;
      } catch (RejectedExecutionException e) {
        // the threads were shut down: closing
      }
    }
  }

  private void run() {
    read.run();
    synchronized (this) {
      // The read that just ran is still the pending one, unless a later call brought one forward:
      // a due one is this read (or one about to run), and the next is scheduled afresh below.
      if (next != null && nextAt - System.nanoTime() <= 0) {
        next.cancel(false);
        next = null;
      }
    }
    within(everyNanos.getAsLong());
  }

  synchronized void close() {
    closed = true;
  }
}
