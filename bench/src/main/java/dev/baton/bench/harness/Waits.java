package dev.baton.bench.harness;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;

/**
 * Polling until something holds. The figures never come from the poll: watchers stamp the time of
 * each event on their own thread, so the poll interval only decides when the harness moves on.
 */
public final class Waits {

  private Waits() {}

  /** True when the condition held within the timeout. */
  public static boolean until(BooleanSupplier condition, Duration timeout, Duration poll) {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      if (condition.getAsBoolean()) {
        return true;
      }
      if (System.nanoTime() > deadline) {
        return false;
      }
      LockSupport.parkNanos(poll.toNanos());
      if (Thread.currentThread().isInterrupted()) {
        return false;
      }
    }
  }

  public static void require(BooleanSupplier condition, Duration timeout, String what) {
    if (!until(condition, timeout, Duration.ofMillis(5))) {
      throw new IllegalStateException(
          "timed out after " + timeout.toSeconds() + " s waiting for " + what);
    }
  }

  public static void sleep(Duration d) {
    try {
      Thread.sleep(d.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted");
    }
  }
}
