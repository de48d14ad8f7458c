package dev.baton.operator;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ForkJoinPool;

/**
 * A pool for the JDK HTTP client's response handling. Its sendAsync moves every dependent action
 * (Fabric8's decoding of the response, an informer's processing of a listed page) to
 * CompletableFuture's default executor, and with fewer than three processors that executor is not
 * the common pool but a new thread per task: one thread started per API response, 5,397 of them in
 * a cold start of 1,000 groups on two cores, which took 19.3–19.7 s against 13.6–18.1 s with a pool
 * (bench/results/2026-11-30-scale-indexed-mock.md). Must run before anything uses
 * CompletableFuture, which picks its executor once.
 */
final class AsyncPool {

  static final String PARALLELISM = "java.util.concurrent.ForkJoinPool.common.parallelism";

  /**
   * Threads of the common pool at the least: the JDK's own choice on a five-processor machine, with
   * room for a continuation that waits.
   */
  static final int MINIMUM = 4;

  private AsyncPool() {}

  /** The parallelism to set, or null to leave the JVM's own choice or the user's. */
  static String parallelism(String configured, int processors) {
    if (configured != null && !configured.isBlank()) {
      return null;
    }
    return processors - 1 >= MINIMUM ? null : Integer.toString(MINIMUM);
  }

  static void configure() {
    String parallelism =
        parallelism(System.getProperty(PARALLELISM), Runtime.getRuntime().availableProcessors());
    if (parallelism != null) {
      System.setProperty(PARALLELISM, parallelism);
    }
  }

  /** Whether async completions run on a pool rather than on a new thread each. */
  static boolean pooled() {
    return new CompletableFuture<Void>().defaultExecutor() instanceof ForkJoinPool;
  }
}
