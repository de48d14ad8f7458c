package dev.baton.bench.agent;

import dev.baton.testkit.ByteRecorder;
import dev.baton.testkit.FreePorts;
import dev.baton.testkit.Kubeconfig;
import dev.baton.testkit.PausableProxy;
import dev.baton.testkit.Sandbox;
import dev.baton.testkit.Signals;
import dev.baton.testkit.StampedWriter;
import java.io.IOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * The agents of the simulated pods, each the shipped jar in its own JVM, with their apps: {@link
 * ByteRecorder} echo apps, so that every trial is also judged by what reached the applications.
 */
final class AgentFleet implements AutoCloseable {

  /** How often a pooled writer on a gate sends a stamped frame, as in the agent's fault tests. */
  static final Duration WRITE_EVERY = Duration.ofMillis(2);

  private record Agent(Process process, int httpPort) {}

  private final Sandbox cluster;
  private final Path jar;
  private final Path dir;
  private final Duration confirmWithin;
  private final Path kubeconfig;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final Map<String, Agent> agents = new LinkedHashMap<>();
  private final ByteRecorder bytes = new ByteRecorder();
  private final Map<String, ByteRecorder.App> apps = new HashMap<>();
  private final Map<String, PausableProxy> apiProxies = new HashMap<>();
  private final Map<String, PausableProxy> redisProxies = new HashMap<>();
  private final Map<String, Integer> gatePorts = new HashMap<>();
  private final Map<String, Integer> httpPorts = new HashMap<>();
  private final Map<String, String> addresses = new HashMap<>();

  AgentFleet(Sandbox cluster, Path jar, Path dir, Duration confirmWithin) throws IOException {
    this.cluster = cluster;
    this.jar = jar;
    this.dir = dir;
    this.confirmWithin = confirmWithin;
    this.kubeconfig =
        Kubeconfig.write(
            dir.resolve("kubeconfig"), cluster.client.getMasterUrl().toString(), "shop");
  }

  /**
   * Before its first start: the agent of {@code pod} binds its gates on {@code ip} (its pod's own
   * address) with {@code gatePort}, the port every pod of the group shares, as pods do.
   */
  void onAddress(String pod, String ip, int gatePort) {
    addresses.put(pod, ip);
    gatePorts.put(pod, gatePort);
  }

  /** Starts (or restarts) the agent of {@code pod}; the milliseconds from start to /readyz. */
  double start(String pod) {
    return start(pod, javaJar(), Map.of());
  }

  /**
   * Starts the agent of {@code pod} again (stopping the one running), now reaching the API server
   * through a proxy of its own, and Redis too with {@code redisToo}, so that a fault trial can make
   * its API reads hang, or Redis silent, for this agent alone.
   */
  void startBehindProxies(String pod, boolean redisToo) throws InterruptedException {
    if (agents.containsKey(pod)) {
      kill(pod);
    }
    URI api = URI.create(cluster.client.getMasterUrl().toString());
    PausableProxy apiProxy =
        apiProxies.computeIfAbsent(pod, p -> PausableProxy.to(api.getHost(), api.getPort()));
    Map<String, String> env = new HashMap<>();
    env.put(
        "KUBECONFIG",
        Kubeconfig.write(
                dir.resolve(pod + ".kubeconfig"),
                api.getScheme() + "://127.0.0.1:" + apiProxy.port(),
                Sandbox.NS)
            .toString());
    if (redisToo) {
      PausableProxy redisProxy =
          redisProxies.computeIfAbsent(
              pod, p -> PausableProxy.to("127.0.0.1", cluster.redis.port()));
      env.put("BATON_REDIS_URL", "redis://127.0.0.1:" + redisProxy.port());
    }
    start(pod, javaJar(), env);
  }

  /**
   * Starts the agent of {@code pod} as the image does: the entrypoint, its default options, and a
   * class archive it trained as the Dockerfile has it train (beside a copy of the jar, trained
   * again whenever the jar built differs from that copy: an earlier run's agent is never measured),
   * with {@code extraEnv} besides the usual.
   */
  double startAsTheImage(String pod, Path entrypoint, Map<String, String> extraEnv)
      throws IOException, InterruptedException {
    Path home = dir.resolve("image-home");
    Path copy = home.resolve("baton-agent.jar");
    Path archive = home.resolve("baton-agent.jsa");
    if (!Files.isRegularFile(archive)
        || !Files.isRegularFile(copy)
        || Files.mismatch(jar, copy) != -1) {
      Files.createDirectories(home);
      Files.deleteIfExists(archive);
      Files.copy(jar, copy, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      ProcessBuilder training =
          new ProcessBuilder("sh", entrypoint.toAbsolutePath().toString(), "train-class-archive")
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("class-archive-training.log").toFile());
      training.environment().keySet().removeIf(k -> !k.equals("PATH") && !k.equals("HOME"));
      training.environment().put("BATON_HOME", home.toString());
      if (training.start().waitFor() != 0) {
        throw new IllegalStateException(
            "the entrypoint did not train the agent's class archive; see "
                + dir.resolve("class-archive-training.log"));
      }
    }
    Map<String, String> env = new HashMap<>(extraEnv);
    env.put("BATON_HOME", home.toString());
    return start(pod, List.of("sh", entrypoint.toAbsolutePath().toString()), env);
  }

  List<String> javaJar() {
    return List.of(
        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-jar",
        jar.toAbsolutePath().toString());
  }

  /** Starts the agent of {@code pod} with {@code command}; the milliseconds to /readyz. */
  double start(String pod, List<String> command, Map<String, String> extraEnv) {
    ByteRecorder.App app = apps.computeIfAbsent(pod, bytes::app);
    int gate = gatePorts.computeIfAbsent(pod, p -> FreePorts.any());
    int httpPort = httpPorts.computeIfAbsent(pod, p -> FreePorts.any());
    ProcessBuilder pb =
        new ProcessBuilder(command)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(dir.resolve(pod + ".log").toFile()));
    Map<String, String> env = pb.environment();
    env.keySet().removeIf(k -> !k.equals("PATH") && !k.equals("HOME"));
    env.put("POD_NAME", pod);
    env.put("POD_NAMESPACE", Sandbox.NS);
    env.put("BATON_AGENT_LISTEN", "127.0.0.1:" + httpPort);
    env.put("BATON_AGENT_GATE", gate + ":127.0.0.1:" + app.port());
    env.put("BATON_AGENT_CONFIRM_WITHIN", confirmWithin.toMillis() + "ms");
    env.put("BATON_REDIS_URL", cluster.redis.url());
    env.put("KUBECONFIG", kubeconfig.toString());
    if (addresses.containsKey(pod)) {
      env.put("BATON_AGENT_GATE_BIND", addresses.get(pod));
    }
    env.putAll(extraEnv);
    long start = System.nanoTime();
    Process p;
    try {
      p = pb.start();
    } catch (IOException e) {
      throw new IllegalStateException("cannot start the agent of " + pod, e);
    }
    agents.put(pod, new Agent(p, httpPort));
    while (!ready(pod)) {
      if (!p.isAlive() || System.nanoTime() - start > 30_000_000_000L) {
        throw new IllegalStateException("the agent of " + pod + " did not get ready");
      }
      LockSupport.parkNanos(2_000_000);
    }
    return AgentBench.millisSince(start, System.nanoTime());
  }

  boolean ready(String pod) {
    HttpResponse<String> r = get(pod, "/readyz");
    return r != null && r.statusCode() == 200 && r.body().startsWith("ok");
  }

  /**
   * Whether the agent of {@code pod} answers /readyz 503 because Redis has not answered it: what a
   * kubelet's readiness probe would read before it sets the pod not ready.
   */
  boolean notReadyForRedis(String pod) {
    HttpResponse<String> r = get(pod, "/readyz");
    return r != null && r.statusCode() == 503 && r.body().contains("Redis");
  }

  /** Whether the agent of {@code pod} says it leads (and its gates are open). */
  boolean leads(String pod) {
    return leadershipSays(pod, "\"leader\":true");
  }

  /** Whether the agent of {@code pod} answers, and says it does not lead. */
  boolean answersNotLeader(String pod) {
    return leadershipSays(pod, "\"leader\":false");
  }

  private boolean leadershipSays(String pod, String what) {
    HttpResponse<String> r = get(pod, "/v1/leadership");
    return r != null && r.statusCode() == 200 && r.body().contains(what);
  }

  /** The agent's answer, or null when it gave none (not running, frozen, or too slow). */
  private HttpResponse<String> get(String pod, String path) {
    Agent a = agents.get(pod);
    if (a == null || !a.process().isAlive()) {
      return null;
    }
    try {
      return http.send(
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.httpPort() + path))
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

  /** Whether the agent of {@code pod} is running. */
  boolean alive(String pod) {
    Agent a = agents.get(pod);
    return a != null && a.process().isAlive();
  }

  int httpPort(String pod) {
    return agents.get(pod).httpPort();
  }

  /** SIGTERM: the agent stops as a kubelet stops it, gates shut first. */
  void terminate(String pod) {
    Agent a = agents.remove(pod);
    if (a != null) {
      a.process().destroy();
    }
  }

  void kill(String pod) throws InterruptedException {
    Agent a = agents.remove(pod);
    a.process().destroyForcibly();
    a.process().waitFor();
  }

  /** SIGSTOP: the agent's whole JVM frozen where it is, as a long pause or a cgroup freeze. */
  void freeze(String pod) {
    Signals.send(agents.get(pod).process(), "STOP");
  }

  /** SIGCONT: the agent runs on from where it stopped. */
  void thaw(String pod) {
    Signals.send(agents.get(pod).process(), "CONT");
  }

  /** The proxy between the agent of {@code pod} and the API server (see startBehindProxies). */
  PausableProxy apiProxy(String pod) {
    return apiProxies.get(pod);
  }

  /** The proxy between the agent of {@code pod} and Redis (see startBehindProxies). */
  PausableProxy redisProxy(String pod) {
    return redisProxies.get(pod);
  }

  /** Every agent's proxy to Redis (see startBehindProxies). */
  java.util.Collection<PausableProxy> redisProxies() {
    return redisProxies.values();
  }

  /** What reached every pod's application. */
  ByteRecorder bytes() {
    return bytes;
  }

  /** A pooled client writing stamped frames through {@code pod}'s gate, seen to reach its app. */
  StampedWriter writerThrough(String pod) {
    long before = bytes.frames(pod);
    StampedWriter w = StampedWriter.start(gatePort(pod), WRITE_EVERY);
    AgentBench.await(
        () -> bytes.frames(pod) > before + 10,
        Duration.ofSeconds(5),
        "frames through the gate of " + pod);
    return w;
  }

  /** Waits for one labeled leader whose agent leads and whose gate echoes; its name. */
  String awaitOpenLeader() {
    AgentBench.await(
        () -> {
          List<String> l = cluster.leaders(AgentBench.ROLE);
          return l.size() == 1
              && leads(l.get(0))
              && echoes(addresses.getOrDefault(l.get(0), "127.0.0.1"), gatePort(l.get(0)));
        },
        Duration.ofSeconds(20),
        "a leader with an open gate");
    return cluster.leaders(AgentBench.ROLE).get(0);
  }

  /**
   * Polls the gates of the group's other pods every few ms until one echoes a byte: the instant
   * (nanoTime) it did; -1 when none did within {@code within}.
   */
  long awaitGateOtherThan(String pod, Duration within) {
    long deadline = System.nanoTime() + within.toNanos();
    while (System.nanoTime() - deadline < 0) {
      for (int i = 0; i < AgentBench.PODS; i++) {
        String other = AgentBench.pod(i);
        if (!other.equals(pod) && echoes(gatePort(other))) {
          return System.nanoTime();
        }
      }
      LockSupport.parkNanos(2_000_000);
    }
    return -1;
  }

  int gatePort(String pod) {
    return gatePorts.get(pod);
  }

  int appPort(String pod) {
    return apps.get(pod).port();
  }

  int gatePortOfLeader(Sandbox cluster) {
    return gatePort(cluster.leaders(AgentBench.ROLE).get(0));
  }

  int appPortOfLeader(Sandbox cluster) {
    return appPort(cluster.leaders(AgentBench.ROLE).get(0));
  }

  long pidOfLeader(Sandbox cluster) {
    return agents.get(cluster.leaders(AgentBench.ROLE).get(0)).process().pid();
  }

  /** Each agent's resident set (KiB). */
  Map<String, Long> rssKib() throws IOException {
    Map<String, Long> out = new LinkedHashMap<>();
    for (var e : agents.entrySet()) {
      out.put(e.getKey(), AgentFootprint.rssKib(e.getValue().process().pid()));
    }
    return out;
  }

  /** The pid of the agent of {@code pod}. */
  long pid(String pod) {
    return agents.get(pod).process().pid();
  }

  /** Whether a new connection through {@code port} echoes a byte. */
  static boolean echoes(int port) {
    return echoes("127.0.0.1", port);
  }

  static boolean echoes(String host, int port) {
    try (Socket s = new Socket(host, port)) {
      s.setSoTimeout(500);
      s.getOutputStream().write(42);
      return s.getInputStream().read() == 42;
    } catch (IOException e) {
      return false;
    }
  }

  @Override
  public void close() {
    agents.values().forEach(a -> a.process().destroyForcibly());
    apiProxies.values().forEach(PausableProxy::close);
    redisProxies.values().forEach(PausableProxy::close);
    bytes.close();
  }
}
