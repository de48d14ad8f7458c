package dev.baton.bench.harness;

/**
 * A benchmark's progress lines, on stderr so that stdout keeps the report. Its own class, so that
 * every benchmark can tell its progress without depending on the benchmarks' main class, which
 * depends on them all.
 */
public final class Progress {

  private Progress() {}

  public static void line(String line) {
    System.err.println("[bench " + java.time.LocalTime.now().withNano(0) + "] " + line);
  }
}
