package dev.baton.testkit;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The operator in a JVM of its own, pointed at the sandbox's API like a pod at a cluster, so that
 * it can be stopped the ways a pod is: SIGTERM (a rolling upgrade), SIGKILL (a node failure or an
 * OOM kill: no shutdown hook, no lease released) and SIGSTOP (frozen: a partition, a long GC). It
 * runs either the classes of this JVM's classpath or a jar, the shipped one.
 */
public final class OperatorProcess implements AutoCloseable {

  private static final String MAIN_CLASS = "dev.baton.operator.BatonOperator";

  private final String name;
  private volatile boolean frozen;
  private final Map<String, String> env;
  private final Path jar;
  private Path entrypoint;
  private final List<String> jvmOptions;
  private final Path log;
  private final HttpClient http = HttpClient.newHttpClient();
  private Process process;
  private int httpPort;

  private OperatorProcess(
      String name,
      KubernetesUnderTest kube,
      Map<String, String> env,
      Path jar,
      String jvmOptions,
      Path log) {
    this.name = name;
    this.env = new HashMap<>(kube.processEnvironment());
    this.env.putAll(env);
    this.env.putIfAbsent("BATON_LEADER_ELECTION_IDENTITY", name);
    this.jar = jar;
    this.jvmOptions =
        Arrays.stream(jvmOptions.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
    this.log = log;
  }

  /** The operator of this JVM's classpath, with a small heap and a quick start. */
  public OperatorProcess(String name, KubernetesUnderTest kube, Map<String, String> env) {
    this(name, kube, env, null, "-Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1", tempLog(name));
  }

  /** A jar, started as the documentation says ({@code java -jar}), with these JVM options. */
  public static OperatorProcess ofJar(
      String name,
      KubernetesUnderTest kube,
      Map<String, String> env,
      Path jar,
      String jvmOptions,
      Path log) {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " is missing: package the operator first");
    }
    return new OperatorProcess(name, kube, env, jar, jvmOptions, log);
  }

  /**
   * The jar in {@code home} started as the image starts it: through its entrypoint script, with the
   * JVM options in BATON_JVM_OPTIONS.
   */
  public static OperatorProcess ofEntrypoint(
      String name,
      KubernetesUnderTest kube,
      Map<String, String> env,
      Path entrypoint,
      Path home,
      String jvmOptions,
      Path log) {
    Map<String, String> all = new HashMap<>(env);
    all.put("BATON_HOME", home.toAbsolutePath().toString());
    all.put("BATON_JVM_OPTIONS", jvmOptions);
    OperatorProcess p = ofJar(name, kube, all, home.resolve("baton-operator.jar"), "", log);
    p.entrypoint = entrypoint;
    return p;
  }

  public OperatorProcess start() {
    List<String> cmd = new ArrayList<>();
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    if (entrypoint != null) {
      // The script names the jar and the options.
      cmd.addAll(List.of("sh", entrypoint.toAbsolutePath().toString()));
    } else if (jar == null) {
      cmd.add(java);
      cmd.addAll(jvmOptions);
      cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), MAIN_CLASS));
    } else {
      cmd.add(java);
      cmd.addAll(jvmOptions);
      cmd.addAll(List.of("-jar", jar.toAbsolutePath().toString()));
    }
    ProcessBuilder pb =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    Map<String, String> processEnv = pb.environment();
    // Nothing of this JVM's own Kubernetes or Baton settings leaks into the operator's.
    processEnv
        .keySet()
        .removeIf(
            k ->
                k.startsWith("KUBE")
                    || k.startsWith("BATON_")
                    || k.equals("JDK_JAVA_OPTIONS")
                    || k.equals("JAVA_TOOL_OPTIONS"));
    processEnv.putAll(env);
    if (entrypoint != null) {
      // This JVM's java, as the image's is the one on its PATH.
      processEnv.put(
          "PATH", Path.of(java).getParent() + File.pathSeparator + processEnv.get("PATH"));
    }
    ApiRequestLog.operatorStarting(env);
    httpPort =
        env.containsKey("BATON_HTTP_PORT") && !"0".equals(env.get("BATON_HTTP_PORT"))
            ? Integer.parseInt(env.get("BATON_HTTP_PORT"))
            : FreePorts.any();
    processEnv.put("BATON_HTTP_PORT", Integer.toString(httpPort));
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

  public long pid() {
    return process.pid();
  }

  /** SIGKILL, as a node failure or an OOM kill would. */
  public void kill() {
    if (process != null) {
      process.destroyForcibly();
      waitForExit(Duration.ofSeconds(30));
    }
  }

  /**
   * SIGTERM, as a rolling upgrade or a drain would; waits for the process to end.
   *
   * @return its exit status; -1 when it was not running, or had to be killed after {@code grace}
   */
  public int terminate(Duration grace) {
    if (process == null || !process.isAlive()) {
      return -1;
    }
    process.destroy();
    if (!waitForExit(grace)) {
      kill();
      return -1;
    }
    return process.exitValue();
  }

  /** SIGSTOP: the process stays, frozen, as under a partition or a stalled VM. */
  public void freeze() {
    frozen = true;
    Signals.send(process, "STOP");
  }

  /** SIGCONT: a frozen process runs on from where it stopped. */
  public void thaw() {
    Signals.send(process, "CONT");
    frozen = false;
  }

  /** User plus system CPU time of the whole process so far. */
  public Duration cpu() {
    return process
        .info()
        .totalCpuDuration()
        .orElseThrow(
            () -> new IllegalStateException("the CPU time of process " + pid() + " is unknown"));
  }

  /** Whether /readyz answers 200. */
  public boolean ready() {
    return probe("/readyz");
  }

  public int httpPort() {
    return httpPort;
  }

  public String name() {
    return name;
  }

  /**
   * SIGQUIT: the JVM prints every thread's stack to its output, which is this process's log, and
   * runs on. For failures where the operator stopped acting without saying why.
   */
  public void dumpThreads() {
    if (alive() && !frozen) {
      Signals.send(process, "QUIT");
    }
  }

  /** Where the process writes its output. */
  public Path log() {
    return log;
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

  @Override
  public void close() {
    if (process != null && process.isAlive()) {
      // Only a frozen process needs SIGCONT, which takes the kill program: a run that never froze
      // one (the image's class archive training) needs nothing but java.
      if (frozen) {
        thaw();
      }
      kill();
    }
  }

  private boolean probe(String path) {
    try {
      HttpResponse<Void> r =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                  .timeout(Duration.ofSeconds(1))
                  .build(),
              HttpResponse.BodyHandlers.discarding());
      return r.statusCode() == 200;
    } catch (IOException e) {
      return false;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private boolean waitForExit(Duration timeout) {
    try {
      return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private static Path tempLog(String name) {
    try {
      return Files.createTempFile("baton-" + name, ".log");
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
