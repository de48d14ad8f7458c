package dev.baton.operator.chaos;

import dev.baton.testkit.FaultInjector;
import dev.baton.testkit.InvariantChecker;
import dev.baton.testkit.OperatorProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Map;

/**
 * What a chaos run ({@link ChaosIT}) tells about itself: the seed, what it played and what the
 * invariant checker saw, the operators' log tails, and, for a failed run, the whole operator logs.
 */
final class ChaosReport {

  private ChaosReport() {}

  static String firstLine(Throwable e) {
    String m = String.valueOf(e.getMessage()).strip();
    int nl = m.indexOf('\n');
    return e.getClass().getSimpleName() + ": " + (nl < 0 ? m : m.substring(0, nl));
  }

  static String summary(
      long seed,
      long seconds,
      Map<String, Integer> actions,
      InvariantChecker checker,
      List<OperatorProcess> operators,
      FaultInjector faults) {
    int total = actions.values().stream().mapToInt(Integer::intValue).sum();
    StringBuilder sb = new StringBuilder();
    sb.append(
        String.format(
            "chaos: seed %d, %d s, %d chaos events %s, %d pod events seen,"
                + " %d failovers, %d API requests of which %d faulted or delayed, violations %d%n",
            seed,
            seconds,
            total,
            actions,
            checker.events(),
            checker.failovers(),
            faults.requests.get(),
            faults.injected.get(),
            checker.violations().size()));
    checker.violations().forEach(v -> sb.append("  VIOLATION ").append(v).append('\n'));
    for (OperatorProcess op : operators) {
      sb.append("--- ")
          .append(op.name())
          .append(" log tail ---\n")
          .append(op.tail(40))
          .append('\n');
    }
    return sb.toString();
  }

  /**
   * A failed run's operator logs, with a thread dump of each live operator at its end, copied to
   * {@code target/chaos-<seed>-<name>.log}: a violation that lasts is mostly an operator that
   * stopped acting, and its threads say where it stands.
   */
  static void keepLogs(long seed, List<OperatorProcess> operators) {
    operators.forEach(OperatorProcess::dumpThreads);
    Disruptions.sleep(1000);
    for (OperatorProcess op : operators) {
      Path copy = Path.of("target", "chaos-" + seed + "-" + op.name() + ".log");
      try {
        Files.copy(op.log(), copy, StandardCopyOption.REPLACE_EXISTING);
        System.out.println("operator log kept: " + copy.toAbsolutePath());
      } catch (IOException e) {
        System.out.println("cannot keep " + op.log() + ": " + e.getMessage());
      }
    }
  }
}
