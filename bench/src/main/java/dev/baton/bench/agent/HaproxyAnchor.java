package dev.baton.bench.agent;

import dev.baton.testkit.FreePorts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * HAProxy in TCP mode in front of the same target: what a proxy written in C, with its own event
 * loop, costs on this machine, beside the gate. The gate's overhead target asks for 90% of the
 * straight throughput; this shows how much of that any user-space proxy can give when it shares the
 * cores with the clients and the application.
 */
final class HaproxyAnchor implements AutoCloseable {

  private static final List<Path> CANDIDATES =
      List.of(Path.of("/usr/sbin/haproxy"), Path.of("/usr/bin/haproxy"));

  private final Process process;
  private final int port;
  private final String version;

  private HaproxyAnchor(Process process, int port, String version) {
    this.process = process;
    this.port = port;
    this.version = version;
  }

  /** Empty when no haproxy is installed (it is a benchmark anchor, not a requirement). */
  static Optional<HaproxyAnchor> start(Path dir, int targetPort) throws Exception {
    Optional<Path> binary = CANDIDATES.stream().filter(Files::isExecutable).findFirst();
    if (binary.isEmpty()) {
      return Optional.empty();
    }
    int port = FreePorts.any();
    int threads = Runtime.getRuntime().availableProcessors();
    Path config = dir.resolve("haproxy.cfg");
    Files.writeString(
        config,
        String.join(
            "\n",
            "global",
            "  nbthread " + threads,
            "  maxconn 1024",
            "defaults",
            "  mode tcp",
            "  timeout connect 1s",
            "  timeout client 1m",
            "  timeout server 1m",
            "frontend gate",
            "  bind 127.0.0.1:" + port,
            "  default_backend app",
            "backend app",
            "  server app 127.0.0.1:" + targetPort,
            ""));
    String version =
        new String(
                new ProcessBuilder(binary.get().toString(), "-v")
                    .redirectErrorStream(true)
                    .start()
                    .getInputStream()
                    .readAllBytes())
            .lines()
            .findFirst()
            .orElse("HAProxy");
    Process p =
        new ProcessBuilder(binary.get().toString(), "-db", "-f", config.toString())
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve("haproxy.log").toFile())
            .start();
    HaproxyAnchor anchor = new HaproxyAnchor(p, port, version.replaceAll(" - https?://\\S+", ""));
    AgentBench.await(anchor::answers, Duration.ofSeconds(10), "haproxy listening on " + port);
    return Optional.of(anchor);
  }

  private boolean answers() {
    if (!process.isAlive()) {
      throw new IllegalStateException("haproxy exited with " + process.exitValue());
    }
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  int port() {
    return port;
  }

  long pid() {
    return process.pid();
  }

  String version() {
    return version;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(5, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}
