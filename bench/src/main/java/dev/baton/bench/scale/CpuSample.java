package dev.baton.bench.scale;

import dev.baton.testkit.OperatorProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;

/**
 * CPU time of the processes involved at one instant: the operator, this JVM (the mock API server,
 * the watchers and the harness), redis-server, and the whole machine (/proc/stat).
 */
record CpuSample(
    long wallNanos,
    long operatorNanos,
    long benchNanos,
    long redisNanos,
    long machineBusyTicks,
    long machineTotalTicks) {

  static CpuSample take(OperatorProcess operator, ProcessHandle redis) {
    long[] machine = machine();
    return new CpuSample(
        System.nanoTime(),
        operator.cpu().toNanos(),
        cpu(ProcessHandle.current()),
        redis == null ? 0 : cpu(redis),
        machine[0],
        machine[1]);
  }

  /** Percent of one core used between two samples. */
  static double percentOfCore(long cpuBefore, long cpuAfter, CpuSample from, CpuSample to) {
    return 100.0 * (cpuAfter - cpuBefore) / (to.wallNanos - from.wallNanos);
  }

  /** Percent of all cores busy between two samples. */
  static double machineBusy(CpuSample from, CpuSample to) {
    long total = to.machineTotalTicks - from.machineTotalTicks;
    return total == 0 ? Double.NaN : 100.0 * (to.machineBusyTicks - from.machineBusyTicks) / total;
  }

  private static long cpu(ProcessHandle p) {
    return p.info().totalCpuDuration().map(Duration::toNanos).orElse(0L);
  }

  /** {busy, total} jiffies over all cores; busy excludes idle and iowait. */
  private static long[] machine() {
    try {
      String first = Files.readAllLines(Path.of("/proc/stat")).get(0);
      long[] v =
          Arrays.stream(first.trim().split("\\s+")).skip(1).mapToLong(Long::parseLong).toArray();
      long total = Arrays.stream(v).limit(8).sum();
      long idle = v[3] + (v.length > 4 ? v[4] : 0);
      return new long[] {total - idle, total};
    } catch (IOException | RuntimeException e) {
      return new long[] {0, 0};
    }
  }
}
