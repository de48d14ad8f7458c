package dev.baton.bench;

import dev.baton.bench.harness.BenchConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Where and when the figures were measured, printed above every table. */
final class Machine {

  private Machine() {}

  static Map<String, Object> describe(BenchConfig config) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("date", Instant.now().truncatedTo(ChronoUnit.SECONDS).toString());
    m.put("nproc", Runtime.getRuntime().availableProcessors());
    m.put("cpu", cpuModel());
    m.put("memory", memory());
    m.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"));
    m.put("java", System.getProperty("java.vm.name") + " " + System.getProperty("java.version"));
    m.put("redis", firstLine("redis-server", "--version"));
    m.put("commit", firstLine("git", "describe", "--always", "--dirty"));
    m.put(
        "mode", config.quick() ? "quick (smoke run: few trials, figures not for quoting)" : "full");
    if (!config.label().isEmpty()) {
      m.put("label", config.label());
    }
    return m;
  }

  private static String cpuModel() {
    try {
      return Files.readAllLines(Path.of("/proc/cpuinfo")).stream()
          .filter(l -> l.startsWith("model name"))
          .map(l -> l.substring(l.indexOf(':') + 1).trim())
          .findFirst()
          .orElse("unknown");
    } catch (IOException e) {
      return "unknown";
    }
  }

  private static String memory() {
    try {
      return Files.readAllLines(Path.of("/proc/meminfo")).stream()
          .filter(l -> l.startsWith("MemTotal"))
          .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024 / 1024 + " GiB")
          .findFirst()
          .orElse("unknown");
    } catch (IOException | NumberFormatException e) {
      return "unknown";
    }
  }

  private static String firstLine(String... command) {
    try {
      Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
      String out = new String(p.getInputStream().readAllBytes()).trim();
      p.waitFor(10, TimeUnit.SECONDS);
      return out.isEmpty() ? "unknown" : out.lines().findFirst().orElse("unknown");
    } catch (IOException e) {
      return "unknown";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }
}
