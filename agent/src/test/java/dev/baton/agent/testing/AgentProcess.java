package dev.baton.agent.testing;

import dev.baton.testkit.Signals;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The shipped {@code baton-agent.jar} in a JVM of its own, started as the README says. */
public final class AgentProcess implements AutoCloseable {

  /**
   * The jar under test; {@code -Dbaton.agent.jar=...} runs the same tests against another build (an
   * older one, to see a fault test fail where the fix is missing).
   */
  public static final Path JAR =
      Path.of(
          System.getProperty("baton.agent.jar", Path.of("target", "baton-agent.jar").toString()));

  private final Process process;
  private final Path log;
  private final int configuredHttpPort;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  private AgentProcess(Process process, Path log, int configuredHttpPort) {
    this.process = process;
    this.log = log;
    this.configuredHttpPort = configuredHttpPort;
  }

  /** Starts {@code java -jar baton-agent.jar} with exactly {@code env} (plus PATH and HOME). */
  public static AgentProcess start(Map<String, String> env, Path log) {
    if (!Files.isRegularFile(JAR)) {
      throw new IllegalStateException(
          JAR.toAbsolutePath() + " is missing: package the agent first");
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.addAll(List.of("-jar", JAR.toAbsolutePath().toString()));
    ProcessBuilder pb =
        new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
    Map<String, String> processEnv = pb.environment();
    processEnv.keySet().removeIf(k -> !k.equals("PATH") && !k.equals("HOME"));
    processEnv.putAll(env);
    String listen = env.getOrDefault("BATON_AGENT_LISTEN", "127.0.0.1:4040");
    int port = Integer.parseInt(listen.substring(listen.lastIndexOf(':') + 1));
    try {
      return new AgentProcess(pb.start(), log, port);
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the agent", e);
    }
  }

  public boolean alive() {
    return process.isAlive();
  }

  /** Waits for the process to end; its exit code. */
  public int awaitExit(Duration within) throws InterruptedException {
    if (!process.waitFor(within.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
      throw new AssertionError("the agent did not exit within " + within + "; log:\n" + log());
    }
    return process.exitValue();
  }

  /** SIGTERM, as the kubelet stops a container. */
  public void terminate() {
    process.destroy();
  }

  /** SIGKILL: no shutdown hook, nothing let go. */
  public void kill() throws InterruptedException {
    process.destroyForcibly();
    process.waitFor();
  }

  /**
   * The HTTP API's port: as configured, or, for port 0 (no race with other processes for a port
   * picked in advance), the one the agent's start line names; -1 until it is logged.
   */
  public int httpPort() {
    return configuredHttpPort != 0 ? configuredHttpPort : loggedPort("HTTP API on port ");
  }

  /** The probes listener's port, from the start line ({@code BATON_AGENT_HEALTH_LISTEN}). */
  public int probesPort() {
    return loggedPort("probes and metrics on port ");
  }

  private int loggedPort(String after) {
    var m =
        java.util.regex.Pattern.compile(java.util.regex.Pattern.quote(after) + "(\\d+)")
            .matcher(log());
    return m.find() ? Integer.parseInt(m.group(1)) : -1;
  }

  /** SIGSTOP: the whole JVM frozen where it is, as a stop-the-world pause or a cgroup freeze. */
  public void freeze() {
    Signals.send(process, "STOP");
  }

  /** SIGCONT: it runs on from where it stopped. */
  public void thaw() {
    Signals.send(process, "CONT");
  }

  /** A GET on the agent's HTTP API: status and body, or null while it does not answer. */
  public HttpResponse<String> get(String path) {
    if (httpPort() < 0) {
      return null; // its start line, which names the port it bound, is not written yet
    }
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort() + path))
              .timeout(Duration.ofSeconds(2))
              .build(),
          HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** A request with no body on the agent's HTTP API (POST, DELETE, ...): status and body. */
  public HttpResponse<String> send(String method, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort() + path))
            .method(method, HttpRequest.BodyPublishers.noBody())
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A request with a JSON body on the agent's HTTP API: status and body. */
  public HttpResponse<String> send(String method, String path, String json) throws Exception {
    return http.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort() + path))
            .method(method, HttpRequest.BodyPublishers.ofString(json))
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** The JVM's threads as jcmd prints them, for a failure's message. */
  public String threadDump() {
    try {
      Process p =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                  Long.toString(process.pid()),
                  "Thread.print")
              .redirectErrorStream(true)
              .start();
      String out = new String(p.getInputStream().readAllBytes());
      p.waitFor();
      return out;
    } catch (IOException e) {
      return "(no thread dump: " + e.getMessage() + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "(interrupted)";
    }
  }

  public boolean ready() {
    HttpResponse<String> r = get("/readyz");
    return r != null && r.statusCode() == 200;
  }

  public String log() {
    try {
      return Files.readString(log);
    } catch (IOException e) {
      return "(no log: " + e.getMessage() + ")";
    }
  }

  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
