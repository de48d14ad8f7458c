package dev.baton.bench.agent;

import dev.baton.bench.harness.Percentiles;
import dev.baton.bench.harness.Report;
import dev.baton.testkit.Sandbox;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

/**
 * What an idle agent costs: agents of a {@link AgentFleet} started as the image starts them (the
 * entrypoint, its options, a class archive trained as the Dockerfile trains it), with no JVM
 * options, and the floor under them ({@link FootprintFloor}), and their resident sets read from
 * /proc.
 */
final class AgentFootprint {

  private final AgentFleet fleet;
  private final Sandbox cluster;
  private final Path jar;
  private final Path entrypoint;
  private final Path dir;

  AgentFootprint(AgentFleet fleet, Sandbox cluster, Path jar, Path entrypoint, Path dir) {
    this.fleet = fleet;
    this.cluster = cluster;
    this.jar = jar;
    this.entrypoint = entrypoint;
    this.dir = dir;
  }

  private double startAsTheImage(String pod) throws IOException, InterruptedException {
    return fleet.startAsTheImage(pod, entrypoint, Map.of());
  }

  /**
   * Starts {@link FootprintFloor} for {@code pod} as the image starts the agent: its entrypoint and
   * default options, with a jar that holds only its classes in place of the agent's (and no class
   * archive of its own: its few classes beyond the JDK's come from the JDK's archive).
   */
  private double startFloor(String pod) throws IOException {
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
    return fleet.start(
        pod,
        List.of("sh", entrypoint.toAbsolutePath().toString()),
        Map.of(
            "BATON_HOME",
            home.toString(),
            "FLOOR_API_SERVER",
            cluster.client.getMasterUrl().toString()));
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
  IdleFootprint ofIdleFollowers() throws Exception {
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
    fleet.start(plain);
    String floor = "agent-footprint-floor";
    cluster.createPod(floor, "not-in-a-group");
    startFloor(floor);
    // Scraped as Prometheus would: at once, then every 15 s until measured.
    scrape(image);
    scrape(plain);
    LockSupport.parkNanos(
        Math.max(0, Duration.ofSeconds(5).toNanos() - (System.nanoTime() - started)));
    double after5s = rssKib(fleet.pid(image)) / 1024.0;
    for (int s = 20; s <= 65; s += 15) {
      LockSupport.parkNanos(
          Math.max(0, Duration.ofSeconds(s).toNanos() - (System.nanoTime() - started)));
      scrape(image);
      scrape(plain);
    }
    LockSupport.parkNanos(
        Math.max(0, Duration.ofSeconds(70).toNanos() - (System.nanoTime() - started)));
    return new IdleFootprint(
        ready,
        after5s,
        rssKib(fleet.pid(image)) / 1024.0,
        anonymousRssKib(fleet.pid(image)) / 1024.0,
        rssKib(fleet.pid(plain)) / 1024.0,
        rssKib(fleet.pid(floor)) / 1024.0,
        anonymousRssKib(fleet.pid(floor)) / 1024.0);
  }

  /** Reads {@code pod}'s agent's /metrics, as a Prometheus scrape does. */
  private void scrape(String pod) throws IOException, InterruptedException {
    var http = java.net.http.HttpClient.newHttpClient();
    var answer =
        http.send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + fleet.httpPort(pod) + "/metrics"))
                .build(),
            java.net.http.HttpResponse.BodyHandlers.discarding());
    if (answer.statusCode() != 200) {
      throw new IOException(pod + ": /metrics answered " + answer.statusCode());
    }
  }

  /** The rows of the idle followers' footprint, measured now. */
  void idleFollowerRows(Report.Section f) throws Exception {
    IdleFootprint idle = ofIdleFollowers();
    Percentiles asTheImage = Percentiles.of(idle.startToReadyAsTheImage());
    f.row(
        "as the image runs it: start to /readyz, p50 of " + asTheImage.count() + " (ms)",
        asTheImage.p50());
    f.row("as the image runs it: start to /readyz, max (ms)", asTheImage.max());
    f.row(
        "as the image runs it: RSS, idle follower, 5 s after start (MiB)",
        idle.rssAsTheImageAfter5s());
    f.row(
        "as the image runs it: RSS, idle follower, 70 s after start (MiB)",
        idle.rssAsTheImageAfter70s());
    f.row(
        "as the image runs it: of which its own (RssAnon), not file pages a node's agents share"
            + " (MiB)",
        idle.anonymousRssAsTheImageAfter70s());
    f.row("no JVM options: RSS, idle follower, 70 s after start (MiB)", idle.rssPlainAfter70s());
    f.row(
        "the floor, as the image runs it: RSS 70 s after start (MiB; the target for the agent:"
            + " under 48)",
        idle.rssOfTheFloorAfter70s());
    f.row(
        "the floor, as the image runs it: of which its own (RssAnon) (MiB)",
        idle.anonymousRssOfTheFloorAfter70s());
    f.note(
        "As the image runs it: sh agent/src/main/image/baton-agent, the image's entrypoint, with"
            + " its default JVM options (SerialGC, C1 only, -Xms8m -Xmx24m -Xmn2m, compile"
            + " thresholds x5, the class archives unrelocated, MALLOC_ARENA_MAX=2) and the class"
            + " archive it trained itself as the Dockerfile has it (train-class-archive), beside"
            + " a copy of the jar. Each agent's /metrics is read at its start and every 15 s, as"
            + " Prometheus would.");
    f.note(
        "The floor: FootprintFloor (bench/), a program of the JDK alone that holds no more than"
            + " an idle agent must: its pod read and watched over java.net.http, a loopback HTTP"
            + " API on the JDK's server, a Redis connection subscribed to a channel and one that"
            + " sends a script a second (raw RESP, no client library), a gate's listening"
            + " socket. No JSON, YAML, logging, metrics or Redis client. Run by the same"
            + " entrypoint with the same options, its jar in place of the agent's. No agent on"
            + " this JVM and these options can be smaller; over TLS, as in a cluster, both"
            + " grow.");
  }
}
