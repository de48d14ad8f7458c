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
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/** The agents of the simulated pods, each the shipped jar in its own JVM, with their echo apps. */
final class AgentFleet implements AutoCloseable {

  private record Agent(Process process, int httpPort) {}

  private final Sandbox cluster;
  private final Path jar;
  private final Path entrypoint;
  private final Path dir;
  private final Duration confirmWithin;
  private final Path kubeconfig;
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private final Map<String, Agent> agents = new LinkedHashMap<>();
  private final Map<String, EchoServer> apps = new HashMap<>();
  private final Map<String, Integer> gatePorts = new HashMap<>();
  private final Map<String, Integer> httpPorts = new HashMap<>();

  AgentFleet(Sandbox cluster, Path jar, Path entrypoint, Path dir, Duration confirmWithin)
      throws IOException {
    this.cluster = cluster;
    this.jar = jar;
    this.entrypoint = entrypoint;
    this.dir = dir;
    this.confirmWithin = confirmWithin;
    this.kubeconfig =
        Kubeconfig.write(
            dir.resolve("kubeconfig"), cluster.client.getMasterUrl().toString(), "shop");
  }

  /** Starts (or restarts) the agent of {@code pod}; the milliseconds from start to /readyz. */
  double start(String pod) {
    return start(
        pod,
        List.of(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-jar",
            jar.toAbsolutePath().toString()),
        Map.of());
  }

  /**
   * Starts the agent of {@code pod} as the image does: the entrypoint, its default options, and a
   * class archive it trained as the Dockerfile has it train (once, beside a copy of the jar).
   */
  double startAsTheImage(String pod) throws IOException, InterruptedException {
    Path home = dir.resolve("image-home");
    if (!Files.isRegularFile(home.resolve("baton-agent.jsa"))) {
      Files.createDirectories(home);
      Files.copy(jar, home.resolve("baton-agent.jar"));
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
    return start(
        pod,
        List.of("sh", entrypoint.toAbsolutePath().toString()),
        Map.of("BATON_HOME", home.toString()));
  }

  /**
   * Starts {@link FootprintFloor} for {@code pod} as the image starts the agent: its entrypoint and
   * default options, with a jar that holds only its classes in place of the agent's (and no class
   * archive of its own: its few classes beyond the JDK's come from the JDK's archive).
   */
  double startFloor(String pod) throws IOException {
    Path home = dir.resolve("floor-home");
    Files.createDirectories(home);
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, FootprintFloor.class.getName());
    try (var out =
        new JarOutputStream(Files.newOutputStream(home.resolve("baton-agent.jar")), manifest)) {
      for (Class<?> c : FootprintFloor.CLASSES) {
        String entry = c.getName().replace('.', '/') + ".class";
        try (var in = c.getClassLoader().getResourceAsStream(entry)) {
          out.putNextEntry(new JarEntry(entry));
          in.transferTo(out);
          out.closeEntry();
        }
      }
    }
    return start(
        pod,
        List.of("sh", entrypoint.toAbsolutePath().toString()),
        Map.of(
            "BATON_HOME",
            home.toString(),
            "FLOOR_API_SERVER",
            cluster.client.getMasterUrl().toString()));
  }

  private double start(String pod, List<String> command, Map<String, String> extraEnv) {
    EchoServer app = apps.computeIfAbsent(pod, p -> new EchoServer());
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
    return statusKib(pid, "VmRSS:");
  }

  /**
   * The part of the RSS that is this process's alone: the rest maps files (the JVM's libraries, the
   * class archives), whose pages every agent of a node started from one image shares.
   */
  static long anonymousRssKib(long pid) throws IOException {
    return statusKib(pid, "RssAnon:");
  }

  private static long statusKib(long pid, String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
      if (line.startsWith(field)) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }

  /**
   * Idle followers' footprint: as the image runs the agent, with no JVM options at all, and the
   * floor under it ({@link FootprintFloor}).
   */
  record IdleFootprint(
      List<Double> startToReadyAsTheImage,
      double rssAsTheImageAfter5s,
      double rssAsTheImageAfter70s,
      double anonymousRssAsTheImageAfter70s,
      double rssPlainAfter70s,
      double rssOfTheFloorAfter70s,
      double anonymousRssOfTheFloorAfter70s) {}

  /**
   * Agents for pods outside the group (idle followers): three started as the image starts them, one
   * after the other (their start to /readyz), then one with no JVM options; the RSS of the last
   * image-started one 5 s after its start, and of both 70 s after (steady: the agent trims its
   * native heap every minute).
   */
  IdleFootprint footprintOfIdleFollowers(Sandbox cluster) throws Exception {
    List<Double> ready = new ArrayList<>();
    String image = null;
    long started = 0;
    for (int i = 0; i < 3; i++) {
      image = "agent-image-" + i;
      cluster.createPod(image, "not-in-a-group");
      started = System.nanoTime();
      ready.add(startAsTheImage(image));
    }
    String plain = "agent-footprint-plain";
    cluster.createPod(plain, "not-in-a-group");
    start(plain);
    String floor = "agent-footprint-floor";
    cluster.createPod(floor, "not-in-a-group");
    startFloor(floor);
    LockSupport.parkNanos(
        Math.max(0, Duration.ofSeconds(5).toNanos() - (System.nanoTime() - started)));
    double after5s = rssKib(agents.get(image).process().pid()) / 1024.0;
    LockSupport.parkNanos(
        Math.max(0, Duration.ofSeconds(70).toNanos() - (System.nanoTime() - started)));
    return new IdleFootprint(
        ready,
        after5s,
        rssKib(agents.get(image).process().pid()) / 1024.0,
        anonymousRssKib(agents.get(image).process().pid()) / 1024.0,
        rssKib(agents.get(plain).process().pid()) / 1024.0,
        rssKib(agents.get(floor).process().pid()) / 1024.0,
        anonymousRssKib(agents.get(floor).process().pid()) / 1024.0);
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
