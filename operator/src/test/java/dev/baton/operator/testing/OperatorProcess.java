package dev.baton.operator.testing;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The operator in a JVM of its own, pointed at the embedded API server like a pod at a cluster, so
 * that it can be killed the hard way (SIGKILL: no shutdown hook, no lease released).
 */
public final class OperatorProcess implements AutoCloseable {

  private final String name;
  private final Map<String, String> env;
  private final Path log;
  private Process process;

  public OperatorProcess(String name, String apiUrl, Map<String, String> env) {
    this.name = name;
    this.env = new HashMap<>(env);
    this.env.put("KUBERNETES_MASTER", apiUrl);
    this.env.put("KUBERNETES_AUTH_TRYKUBECONFIG", "false");
    this.env.put("KUBERNETES_AUTH_TRYSERVICEACCOUNT", "false");
    this.env.put("KUBERNETES_TRUST_CERTIFICATES", "true");
    this.env.put("BATON_HTTP_PORT", "0");
    this.env.put("BATON_LEADER_ELECTION_IDENTITY", name);
    try {
      this.log = Files.createTempFile("baton-" + name, ".log");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  public OperatorProcess start() {
    List<String> cmd = new ArrayList<>(List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-cp", System.getProperty("java.class.path"),
        "dev.baton.operator.BatonOperator"));
    ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    pb.environment().putAll(env);
    try {
      process = pb.start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start operator " + name, e);
    }
    return this;
  }

  public boolean alive() {
    return process != null && process.isAlive();
  }

  /** SIGKILL, as a node failure or an OOM kill would. */
  public void kill() {
    if (process != null) {
      process.destroyForcibly();
      try {
        process.waitFor();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  public String name() {
    return name;
  }

  /** The last lines the process wrote, for failure messages. */
  public String tail(int lines) {
    try {
      List<String> all = Files.readAllLines(log);
      return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  public File logFile() {
    return log.toFile();
  }

  @Override
  public void close() {
    kill();
  }
}
