package dev.baton.bench.agent;

import dev.baton.testkit.EchoServer;
import dev.baton.testkit.FreePorts;
import dev.baton.testkit.Kubeconfig;
import dev.baton.testkit.Sandbox;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/** The agents of the simulated pods, each the shipped jar in its own JVM, with their echo apps. */
final class AgentFleet implements AutoCloseable {

  private record Agent(Process process, int httpPort) {}

  private final Sandbox cluster;
  private final Path jar;
  private final Path dir;
  private final Duration confirmWithin;
  private final Path kubeconfig;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final Map<String, Agent> agents = new LinkedHashMap<>();
  private final Map<String, EchoServer> apps = new HashMap<>();
  private final Map<String, Integer> gatePorts = new HashMap<>();
  private final Map<String, Integer> httpPorts = new HashMap<>();

  AgentFleet(Sandbox cluster, Path jar, Path dir, Duration confirmWithin) throws IOException {
    this.cluster = cluster;
    this.jar = jar;
    this.dir = dir;
    this.confirmWithin = confirmWithin;
    this.kubeconfig =
        Kubeconfig.write(
            dir.resolve("kubeconfig"), cluster.client.getMasterUrl().toString(), "shop");
  }

  /** Starts (or restarts) the agent of {@code pod}; the milliseconds from start to /readyz. */
  double start(String pod) {
    return start(pod, null);
  }

  double start(String pod, String jvmOptions) {
    EchoServer app = apps.computeIfAbsent(pod, p -> new EchoServer());
    int gate = gatePorts.computeIfAbsent(pod, p -> FreePorts.any());
    int httpPort = httpPorts.computeIfAbsent(pod, p -> FreePorts.any());
    ProcessBuilder pb =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-jar",
                jar.toAbsolutePath().toString())
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
    if (jvmOptions != null) {
      env.put("JDK_JAVA_OPTIONS", jvmOptions);
    }
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
    String body = get(pod, "/readyz");
    return body != null && body.startsWith("ok");
  }

  /** Whether the agent of {@code pod} says it leads (and its gates are open). */
  boolean leads(String pod) {
    String body = get(pod, "/v1/leadership");
    return body != null && body.contains("\"leader\":true");
  }

  private String get(String pod, String path) {
    Agent a = agents.get(pod);
    if (a == null || !a.process().isAlive()) {
      return null;
    }
    try {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + a.httpPort() + path))
                  .timeout(Duration.ofSeconds(2))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return r.statusCode() == 200 ? r.body() : null;
    } catch (IOException e) {
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  void kill(String pod) throws InterruptedException {
    Agent a = agents.remove(pod);
    a.process().destroyForcibly();
    a.process().waitFor();
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

  Map<String, Long> rssKib() throws IOException {
    Map<String, Long> out = new LinkedHashMap<>();
    for (var e : agents.entrySet()) {
      out.put(e.getKey(), rssKib(e.getValue().process().pid()));
    }
    return out;
  }

  static long rssKib(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }

  /**
   * Two agents for pods outside the group (idle followers), one with the example manifests' JVM
   * options and one with none: the first's RSS after 5 s and its start to /readyz, then both RSS 70
   * s after their start (steady: the agent trims its native heap every minute).
   */
  List<Double> footprintOfIdleFollowers(Sandbox cluster) throws Exception {
    String small = "agent-footprint";
    String plain = "agent-footprint-plain";
    cluster.createPod(small, "not-in-a-group");
    cluster.createPod(plain, "not-in-a-group");
    long started = System.nanoTime();
    double ready = start(small, "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx24m -Xss256k");
    start(plain);
    LockSupport.parkNanos(Duration.ofSeconds(5).toNanos());
    double rss = rssKib(agents.get(small).process().pid()) / 1024.0;
    LockSupport.parkNanos(
        Math.max(0, Duration.ofSeconds(70).toNanos() - (System.nanoTime() - started)));
    List<Double> out = new ArrayList<>();
    out.add(rss);
    out.add(ready);
    out.add(rssKib(agents.get(small).process().pid()) / 1024.0);
    out.add(rssKib(agents.get(plain).process().pid()) / 1024.0);
    return out;
  }

  /** Whether a new connection through {@code port} echoes a byte. */
  static boolean echoes(int port) {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
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
    apps.values().forEach(EchoServer::close);
  }
}
