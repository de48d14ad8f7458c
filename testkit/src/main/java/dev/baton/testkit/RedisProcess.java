package dev.baton.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * A redis-server process with a command line of the test's choosing (a Sentinel, a TLS-only
 * server), where {@link LocalRedis}'s fixed plain-port command line does not fit. Ready once it
 * answers PING, or answers at all when a password is required.
 */
public final class RedisProcess implements AutoCloseable {

  private final Path dir;
  private final int port;
  private final SSLContext tls;
  private Process process;

  private RedisProcess(Path dir, int port, SSLContext tls) {
    this.dir = dir;
    this.port = port;
    this.tls = tls;
  }

  /**
   * Starts redis-server with these arguments (which must make it listen on {@code port}, over TLS
   * when {@code tls} is given, which is then how readiness is probed).
   */
  public static RedisProcess start(Path dir, int port, SSLContext tls, List<String> args) {
    RedisProcess p = new RedisProcess(dir, port, tls);
    List<String> cmd = new ArrayList<>();
    cmd.add(LocalRedis.binary());
    cmd.addAll(args);
    try {
      p.process =
          new ProcessBuilder(cmd)
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("stdout-" + port + ".log").toFile())
              .start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start " + cmd + ": " + e.getMessage(), e);
    }
    p.awaitReady();
    return p;
  }

  /**
   * A redis-server with no plain port: TLS on a free loopback port, with a certificate {@code ca}
   * issues, clients not asked for one, and {@code password} for the default user.
   */
  public static RedisProcess startTls(TestCertificates ca, Path dir, String password) {
    TestCertificates.ServerFiles files = ca.issueServer(dir);
    int port = FreePorts.any();
    return start(
        dir,
        port,
        ca.trustingContext(),
        List.of(
            "--port",
            "0",
            "--tls-port",
            Integer.toString(port),
            "--bind",
            "127.0.0.1",
            "--tls-cert-file",
            files.certificate().toString(),
            "--tls-key-file",
            files.key().toString(),
            "--tls-ca-cert-file",
            files.ca().toString(),
            "--tls-auth-clients",
            "no",
            "--requirepass",
            password,
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            dir.toString()));
  }

  public static Path tempDir(String prefix) {
    try {
      return Files.createTempDirectory(prefix);
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  public int port() {
    return port;
  }

  public boolean running() {
    return process != null && process.isAlive();
  }

  private void awaitReady() {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IllegalStateException("redis-server on port " + port + " exited: " + output());
      }
      try (RespClient c = RespClient.connect(port, tls)) {
        Object reply = c.call("PING");
        if ("PONG".equals(reply)
            || reply instanceof RespClient.Error e && e.message().startsWith("NOAUTH")) {
          return;
        }
      } catch (IllegalStateException notYet) {
        // not listening yet
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted");
      }
    }
    throw new IllegalStateException(
        "redis-server did not answer on port " + port + ": " + output());
  }

  /** What the process printed, for failure messages. */
  public String output() {
    try {
      return Files.readString(dir.resolve("stdout-" + port + ".log"));
    } catch (IOException e) {
      return "";
    }
  }

  /** Kills the process at once, as a crash would. */
  public void kill() {
    if (process != null) {
      process.destroyForcibly();
      try {
        process.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      process = null;
    }
  }

  @Override
  public void close() {
    kill();
  }
}
