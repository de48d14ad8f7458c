package dev.baton.bench.scale;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;

/**
 * CPU time of a process's threads from /proc, grouped by thread name with numbers stripped
 * ("ReconcilerExecu", "redisson-netty-", "C2 CompilerThre": Linux keeps 15 characters). Reading
 * /proc does not disturb the process, unlike attaching a profiler.
 */
final class ThreadCpu {

  private static final long TICKS_PER_SECOND = 100; // USER_HZ on Linux

  private ThreadCpu() {}

  /** CPU nanoseconds by thread-name group, for live threads. */
  static Map<String, Long> sample(long pid) {
    Map<String, Long> out = new HashMap<>();
    try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      tasks.forEach(
          task -> {
            try {
              String stat = Files.readString(task.resolve("stat"));
              int open = stat.indexOf('(');
              int close = stat.lastIndexOf(')');
              String name = stat.substring(open + 1, close).replaceAll("[0-9#]+", "").trim();
              String[] f = stat.substring(close + 2).split(" ");
              // After "pid (comm) ": state is field 3, utime 14 and stime 15 (1-based).
              long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
              out.merge(name, ticks * 1_000_000_000L / TICKS_PER_SECOND, Long::sum);
            } catch (IOException | RuntimeException threadGone) {
              // the thread ended between listing and reading
            }
          });
    } catch (IOException e) {
      return Map.of();
    }
    return out;
  }

  /** The top groups by CPU between two samples, as "name 12.3%" of one core over the wall time. */
  static String top(Map<String, Long> before, Map<String, Long> after, double seconds, int n) {
    Map<String, Long> delta = new HashMap<>();
    after.forEach((k, v) -> delta.put(k, v - before.getOrDefault(k, 0L)));
    Map<String, Long> sorted = new LinkedHashMap<>();
    delta.entrySet().stream()
        .filter(e -> e.getValue() > 0)
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .limit(n)
        .forEach(e -> sorted.put(e.getKey(), e.getValue()));
    StringBuilder sb = new StringBuilder();
    sorted.forEach(
        (k, v) ->
            sb.append(sb.length() == 0 ? "" : ", ")
                .append('"')
                .append(k)
                .append("\" ")
                .append(String.format(Locale.ROOT, "%.1f%%", 100.0 * v / (seconds * 1e9))));
    return sb.length() == 0 ? "none" : sb.toString();
  }
}
