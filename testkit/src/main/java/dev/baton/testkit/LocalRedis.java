package dev.baton.testkit;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A real redis-server process on a free loopback port, for the demo and the tests: started, killed
 * (SIGKILL, like a crash) and restarted on the same port, without persistence unless asked.
 */
public final class LocalRedis implements AutoCloseable {

  private final String binary;
  private final Path dir;
  private final List<String> extraArgs;
  private final Map<String, String> env;
  private int port;
  private Process process;
  private volatile boolean frozen;

  private LocalRedis(String binary, Path dir, List<String> extraArgs, Map<String, String> env) {
    this.binary = binary;
    this.dir = dir;
    this.extraArgs = extraArgs;
    this.env = env;
  }

  /** Starts a redis-server on a free port; extra arguments go to its command line. */
  public static LocalRedis start(String... extraArgs) {
    return start(Map.of(), extraArgs);
  }

  /** The same, with {@code env} added to its environment (an LD_PRELOAD, say). */
  public static LocalRedis start(Map<String, String> env, String... extraArgs) {
    try {
      LocalRedis redis =
          new LocalRedis(
              binary(),
              Files.createTempDirectory("baton-redis"),
              List.of(extraArgs),
              Map.copyOf(env));
      redis.port = FreePorts.any();
      redis.launch();
      return redis;
    } catch (IOException e) {
      throw new IllegalStateException("cannot start redis-server: " + e.getMessage(), e);
    }
  }

  /**
   * redis-server from BATON_REDIS_SERVER or PATH; else the Linux binary bundled in the jar (from
   * the embedded-redis artifact), copied to a temporary file once.
   */
  public static synchronized String binary() {
    String configured = System.getenv("BATON_REDIS_SERVER");
    if (configured != null && new File(configured).canExecute()) {
      return configured;
    }
    List<String> dirs =
        new ArrayList<>(
            List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
    dirs.addAll(List.of("/usr/bin", "/usr/local/bin", "/usr/sbin"));
    for (String dir : dirs) {
      File f = new File(dir, "redis-server");
      if (f.canExecute()) {
        return f.getAbsolutePath();
      }
    }
    if (bundled == null) {
      bundled = extractBundled();
    }
    return bundled;
  }

  private static String bundled;

  private static String extractBundled() {
    String arch =
        System.getProperty("os.arch").contains("aarch64") ? "linux-arm64" : "v5-linux-amd64";
    String resource = "/redis-server-6.2.6-" + arch;
    if (arch.equals("linux-arm64")) {
      resource = "/redis-server-6.2.7-linux-arm64";
    }
    try (InputStream in = LocalRedis.class.getResourceAsStream(resource)) {
      if (in == null || !System.getProperty("os.name").toLowerCase().contains("linux")) {
        throw new IllegalStateException(
            "redis-server not found on PATH and no bundled binary for"
                + " this system; install it (apt-get install -y redis-server) or set"
                + " BATON_REDIS_SERVER to its path");
      }
      Path file = Files.createTempFile("baton-redis-server", "");
      Files.copy(in, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      file.toFile().setExecutable(true);
      file.toFile().deleteOnExit();
      return file.toString();
    } catch (IOException e) {
      throw new IllegalStateException(
          "cannot extract the bundled redis-server: " + e.getMessage(), e);
    }
  }

  public int port() {
    return port;
  }

  public String url() {
    return "redis://127.0.0.1:" + port;
  }

  public boolean running() {
    return process != null && process.isAlive();
  }

  /** Running and not frozen: it answers. */
  public boolean answering() {
    return running() && !frozen;
  }

  /** Kills the process at once, as a crash would. */
  public void kill() {
    if (process != null) {
      Signals.send(process, "CONT");
      process.destroyForcibly();
      try {
        process.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      process = null;
      frozen = false;
    }
  }

  /**
   * SIGSTOP: the process stays, holding its port and its data, and answers nothing, as a Redis that
   * hangs (a stalled VM, a stuck disk) would.
   */
  public void freeze() {
    Signals.send(process, "STOP");
    frozen = true;
  }

  /** SIGCONT: a frozen Redis answers again, its keys' expiry having run on meanwhile. */
  public void thaw() {
    if (process != null) {
      Signals.send(process, "CONT");
    }
    frozen = false;
  }

  /** Starts again on the same port, empty, as a Redis without persistence comes back. */
  public void restart() {
    restart(false);
  }

  /**
   * Starts again on the same port. With {@code keepData} the data is saved to disk first and loaded
   * back, as with persistence; without, it comes back empty.
   */
  public void restart(boolean keepData) {
    if (keepData && running()) {
      command("SAVE");
    }
    kill();
    try {
      if (!keepData) {
        Files.deleteIfExists(dir.resolve("dump.rdb"));
      }
      launch();
    } catch (IOException e) {
      throw new IllegalStateException("cannot restart redis-server: " + e.getMessage(), e);
    }
  }

  /**
   * Crashes (SIGKILL, nothing saved) and starts again from the last snapshot written by {@code
   * SAVE}, as a Redis with RDB persistence comes back after a crash: with the data as it was then,
   * older than what it held when it died, under a new run id.
   */
  public void crashAndRestoreLastSnapshot() {
    kill();
    try {
      launch();
    } catch (IOException e) {
      throw new IllegalStateException("cannot restart redis-server: " + e.getMessage(), e);
    }
  }

  /** Sends one command (inline protocol) and returns the raw reply line(s). */
  public String command(String... words) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      s.setSoTimeout(2000);
      StringBuilder req = new StringBuilder("*" + words.length + "\r\n");
      for (String w : words) {
        byte[] b = w.getBytes(StandardCharsets.UTF_8);
        req.append('$').append(b.length).append("\r\n").append(w).append("\r\n");
      }
      OutputStream out = s.getOutputStream();
      out.write(req.toString().getBytes(StandardCharsets.UTF_8));
      out.flush();
      InputStream in = s.getInputStream();
      byte[] buf = new byte[65536];
      int n = in.read(buf);
      return n <= 0 ? "" : new String(buf, 0, n, StandardCharsets.UTF_8).trim();
    } catch (IOException e) {
      throw new IllegalStateException("redis command failed: " + e.getMessage(), e);
    }
  }

  private void launch() throws IOException {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                binary,
                "--port",
                Integer.toString(port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
                "--dir",
                dir.toString(),
                "--daemonize",
                "no",
                "--logfile",
                dir.resolve("redis.log").toString()));
    cmd.addAll(extraArgs);
    ProcessBuilder pb = new ProcessBuilder(cmd);
    pb.environment().putAll(env);
    process =
        pb.redirectErrorStream(true).redirectOutput(dir.resolve("stdout.log").toFile()).start();
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException(
            "redis-server exited: " + Files.readString(dir.resolve("stdout.log")) + readLog());
      }
      try {
        String reply = command("PING");
        // A server started with --requirepass answers NOAUTH: it is up all the same.
        if (reply.contains("PONG") || reply.startsWith("-NOAUTH")) {
          return;
        }
      } catch (IllegalStateException notYet) {
        // not listening yet
      }
      try {
        Thread.sleep(20);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("interrupted");
      }
    }
    throw new IOException("redis-server did not answer PING on port " + port);
  }

  private String readLog() {
    try {
      return Files.readString(dir.resolve("redis.log"));
    } catch (IOException e) {
      return "";
    }
  }

  @Override
  public void close() {
    kill();
  }
}
