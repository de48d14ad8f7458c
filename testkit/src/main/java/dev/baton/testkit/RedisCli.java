package dev.baton.testkit;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** The redis-cli program, which creates and repairs the test kit's Redis Clusters. */
final class RedisCli {

  private RedisCli() {}

  /** redis-cli beside redis-server, or on PATH. */
  static String path() {
    File server = new File(LocalRedis.binary());
    File beside = new File(server.getParentFile(), "redis-cli");
    if (beside.canExecute()) {
      return beside.getAbsolutePath();
    }
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      File f = new File(dir, "redis-cli");
      if (f.canExecute()) {
        return f.getAbsolutePath();
      }
    }
    throw new IllegalStateException(
        "redis-cli not found: install it (apt-get install -y redis-server brings it)");
  }

  static String run(List<String> cmd, Duration timeout) throws IOException {
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    try {
      if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        throw new IOException(String.join(" ", cmd) + " did not finish within " + timeout);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted");
    }
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.exitValue() != 0) {
      throw new IOException(String.join(" ", cmd) + " failed: " + out);
    }
    return out;
  }
}
