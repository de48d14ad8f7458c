package dev.baton.bench.agent;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.bench.harness.BenchConfig;
import dev.baton.bench.harness.Progress;
import dev.baton.bench.harness.Report;
import dev.baton.client.BatonNames;
import dev.baton.operator.BatonOperator;
import dev.baton.testkit.FreePorts;
import dev.baton.testkit.KubernetesUnderTest;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The agent under hostile connections (issue 58's load test): two agents as the image runs them
 * (entrypoint, default JVM options, class archive), in relay mode with a probes port, the leader on
 * 127.0.0.30 and a follower that never leads on 127.0.0.31. While a kubelet's probe, a client of
 * the leader's gate and a client relayed by the follower each try every 250 ms, hostile clients
 * open {@link #IDLE} idle connections to every port of both agents (public gates, the leader-only
 * gate, the probes port, the local API), trickle preambles and request lines a byte every 500 ms
 * ({@link #TRICKLERS} per port, reconnecting when cut) and push bytes through the leader's gate
 * that they never read back ({@link #NON_READERS}). Prints, per phase, the agents' largest RSS
 * beside the container's memory limit, and how many probes, direct and relayed echoes succeeded.
 */
public final class HostileLoad {

  static final int IDLE = 1000;
  static final int TRICKLERS = 200;
  static final int NON_READERS = 200;

  /**
   * The agent container's memory limit, as the webhook injects it and the reference examples set.
   */
  static final int LIMIT_MIB = 96;

  private static final String LEADER = "hostile-l";
  private static final String FOLLOWER = "hostile-f";
  private static final Map<String, String> IPS =
      Map.of(LEADER, "127.0.0.30", FOLLOWER, "127.0.0.31");

  private final BenchConfig config;
  private final Path jar;
  private final Path entrypoint;
  private final int gatePort = FreePorts.any();
  private final int leaderOnlyPort = FreePorts.any();
  private final int probesPort = FreePorts.any();
  private final List<SocketChannel> hostile = new ArrayList<>();
  private int from; // the next hostile client's source address, one of HOSTS

  /** Hostile clients come from this many addresses (127.0.1.x), as pods of a cluster would. */
  static final int HOSTS = 64;

  public HostileLoad(BenchConfig config) {
    this.config = config;
    this.jar = Path.of(System.getProperty("bench.agentJar", "agent/target/baton-agent.jar"));
    this.entrypoint =
        Path.of(System.getProperty("bench.agentEntrypoint", "agent/src/main/image/baton-agent"));
  }

  public void run(Report report) throws Exception {
    Report.Section s =
        report.section(
            "agent-hostile",
            "The agent under hostile connections, as the image runs it (RSS in MiB beside the"
                + " container's limit of "
                + LIMIT_MIB
                + " Mi; checks every 250 ms, each with a 2 s timeout)",
            "phase",
            "seconds",
            "leader RSS max",
            "leader's anonymous RSS max",
            "follower RSS max",
            "follower's anonymous RSS max",
            "limit",
            "probes answered 200",
            "leader's gate echoed",
            "relayed by the follower, echoed",
            "both agents alive");
    Path dir = Files.createDirectories(config.out().resolve("agent-hostile"));
    try (Sandbox cluster =
            new Sandbox(KubernetesUnderTest.fromEnvironment(), BatonOperator::launch, Map.of());
        AgentFleet fleet = new AgentFleet(cluster, jar, dir, AgentBench.CONFIRM_WITHIN)) {
      cluster.startOperator();
      for (String pod : List.of(LEADER, FOLLOWER)) {
        Pod p = Sandbox.readyPod(Sandbox.NS, pod, Map.of("app", AgentBench.APP));
        p.getStatus().setPodIP(IPS.get(pod));
        if (pod.equals(FOLLOWER)) {
          p.getMetadata().setAnnotations(Map.of(BatonNames.CANDIDATE_ANNOTATION, "false"));
        }
        cluster.createPod(p);
      }
      LeaderGroup group = Sandbox.group(AgentBench.APP, AgentBench.APP);
      cluster.create(group);
      for (String pod : List.of(LEADER, FOLLOWER)) {
        fleet.onAddress(pod, IPS.get(pod), gatePort);
        Map<String, String> env = new java.util.HashMap<>();
        env.put("BATON_AGENT_RELAY", gatePort + ":" + leaderOnlyPort);
        env.put("BATON_AGENT_HEALTH_LISTEN", IPS.get(pod) + ":" + probesPort);
        // Another JVM's options in place of the image's (to look inside: native memory tracking).
        String options = System.getProperty("bench.agentJvmOptions", "");
        if (!options.isBlank()) {
          env.put("BATON_AGENT_JVM_OPTIONS", options);
        }
        fleet.startAsTheImage(pod, entrypoint, env);
      }
      fleet.awaitOpenLeader();
      s.row(phase("quiet", 10, fleet));
      ScheduledExecutorService load = Executors.newScheduledThreadPool(2);
      try {
        openIdle(IPS.get(LEADER), gatePort);
        openIdle(IPS.get(LEADER), leaderOnlyPort);
        openIdle(IPS.get(LEADER), probesPort);
        openIdle("127.0.0.1", fleet.httpPort(LEADER));
        openIdle(IPS.get(FOLLOWER), gatePort);
        openIdle(IPS.get(FOLLOWER), probesPort);
        s.row(phase("1,000 idle connections to each port of both agents", 20, fleet));
        trickle(load, IPS.get(LEADER), leaderOnlyPort, "BATON-RELAY/2 shop/app 1 8080 ");
        trickle(load, IPS.get(LEADER), probesPort, "GET /readyz HTTP/1.1\r\nHost: x\r\n");
        trickle(load, "127.0.0.1", fleet.httpPort(LEADER), "GET /v1/leadership HTTP/1.1\r\n");
        s.row(phase("and slow preambles and request lines (a byte every 500 ms)", 20, fleet));
        flood(load, IPS.get(LEADER), gatePort);
        s.row(phase("and clients that never read what they are sent", 30, fleet));
        if (System.getProperty("bench.agentJvmOptions", "").contains("NativeMemoryTracking")) {
          new ProcessBuilder(
                  "jcmd", Long.toString(fleet.pid(LEADER)), "VM.native_memory", "summary")
              .redirectErrorStream(true)
              .redirectOutput(dir.resolve("leader-native-memory.txt").toFile())
              .start()
              .waitFor();
        }
      } finally {
        load.shutdownNow();
        synchronized (hostile) {
          hostile.forEach(HostileLoad::closeQuietly);
        }
      }
      s.row(phase("after the hostile clients left", 10, fleet));
    }
    s.note(
        "Two agents (leader and follower, relay mode, probes on their own port), each started"
            + " by the image's entrypoint with its default JVM options (-Xmx24m -Xss256k ...)"
            + " and its class archive. Idle: "
            + IDLE
            + " connections opened to each listening port and left silent. Slow: "
            + TRICKLERS
            + " connections per port (leader-only gate, probes, local API) each sending one"
            + " byte every 500 ms, opened again when cut. Non-readers: "
            + NON_READERS
            + " connections to the leader's gate writing as much as the sockets take and never"
            + " reading the echo. Every hostile client comes from one of "
            + HOSTS
            + " addresses (127.0.1.x); the probes from 127.0.0.1, the follower's relays from its"
            + " own address. RSS counts the pages of the class archive the agent maps (about 38"
            + " MiB, native memory tracking's 'shared class space'): clean file pages that every"
            + " agent of a node started from the image shares and that the kernel reclaims under"
            + " the container's limit; the anonymous part is what the limit cannot take back."
            + " Sockets' kernel buffers are charged to the container too and are not in either."
            + " A probe is GET /readyz on the probes port, as a kubelet"
            + " sends it; an echo is a new connection that writes a byte and reads it back.");
  }

  private Object[] phase(String name, int seconds, AgentFleet fleet) throws Exception {
    long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    double leaderRss = 0;
    double followerRss = 0;
    double leaderAnon = 0;
    double followerAnon = 0;
    int checks = 0;
    int probes = 0;
    int direct = 0;
    int relayed = 0;
    boolean alive = true;
    while (System.nanoTime() < end) {
      long next = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(250);
      checks++;
      probes += probe(IPS.get(LEADER), probesPort) ? 1 : 0;
      direct += AgentFleet.echoes(IPS.get(LEADER), gatePort) ? 1 : 0;
      relayed += AgentFleet.echoes(IPS.get(FOLLOWER), gatePort) ? 1 : 0;
      try {
        leaderRss = Math.max(leaderRss, AgentFootprint.rssKib(fleet.pid(LEADER)) / 1024.0);
        followerRss = Math.max(followerRss, AgentFootprint.rssKib(fleet.pid(FOLLOWER)) / 1024.0);
        leaderAnon =
            Math.max(leaderAnon, AgentFootprint.anonymousRssKib(fleet.pid(LEADER)) / 1024.0);
        followerAnon =
            Math.max(followerAnon, AgentFootprint.anonymousRssKib(fleet.pid(FOLLOWER)) / 1024.0);
      } catch (IOException e) {
        alive = false; // its /proc entry is gone
      }
      long left = next - System.nanoTime();
      if (left > 0) {
        TimeUnit.NANOSECONDS.sleep(left);
      }
    }
    alive &= fleet.alive(LEADER) && fleet.alive(FOLLOWER);
    Progress.line(
        String.format(
            "hostile %s: RSS %.1f / %.1f MiB, probes %d/%d, direct %d/%d, relayed %d/%d, alive %s",
            name, leaderRss, followerRss, probes, checks, direct, checks, relayed, checks, alive));
    return new Object[] {
      name,
      seconds,
      String.format("%.1f", leaderRss),
      String.format("%.1f", leaderAnon),
      String.format("%.1f", followerRss),
      String.format("%.1f", followerAnon),
      LIMIT_MIB,
      probes + " / " + checks,
      direct + " / " + checks,
      relayed + " / " + checks,
      alive ? "yes" : "NO"
    };
  }

  /** GET /readyz as a kubelet sends it, on a new connection: whether it answered 200. */
  private static boolean probe(String host, int port) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(host, port), 2000);
      s.setSoTimeout(2000);
      s.getOutputStream()
          .write(
              ("GET /readyz HTTP/1.1\r\nHost: "
                      + host
                      + "\r\nUser-Agent: kube-probe/1.32\r\n"
                      + "Connection: close\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      InputStream in = s.getInputStream();
      byte[] status = in.readNBytes(12);
      return new String(status, StandardCharsets.US_ASCII).equals("HTTP/1.1 200");
    } catch (IOException e) {
      return false;
    }
  }

  private void openIdle(String host, int port) {
    int opened = 0;
    for (int i = 0; i < IDLE; i++) {
      try {
        SocketChannel c = hostileChannel();
        c.connect(new InetSocketAddress(host, port));
        synchronized (hostile) {
          hostile.add(c);
        }
        opened++;
      } catch (IOException e) {
        // the backlog is full: the agent is not accepting, or refuses
      }
    }
    Progress.line("hostile: " + opened + " idle connections to " + host + ":" + port);
  }

  /** {@link #TRICKLERS} connections that each send {@code text} a byte every 500 ms. */
  private void trickle(ScheduledExecutorService load, String host, int port, String text) {
    byte[] bytes = text.getBytes(StandardCharsets.US_ASCII);
    List<SocketChannel> conns = new ArrayList<>();
    int[] sent = new int[TRICKLERS];
    for (int i = 0; i < TRICKLERS; i++) {
      conns.add(open(host, port));
    }
    load.scheduleAtFixedRate(
        () -> {
          for (int i = 0; i < conns.size(); i++) {
            try {
              SocketChannel c = conns.get(i);
              if (c.isConnectionPending()) {
                c.finishConnect();
              }
              if (c.isConnected()) {
                c.write(ByteBuffer.wrap(bytes, sent[i]++ % bytes.length, 1));
              }
            } catch (IOException e) {
              closeQuietly(conns.get(i));
              conns.set(i, open(host, port));
              sent[i] = 0;
            }
          }
        },
        500,
        500,
        TimeUnit.MILLISECONDS);
  }

  /** {@link #NON_READERS} connections that write as much as they can and never read. */
  private void flood(ScheduledExecutorService load, String host, int port) {
    List<SocketChannel> conns = new ArrayList<>();
    for (int i = 0; i < NON_READERS; i++) {
      conns.add(open(host, port));
    }
    ByteBuffer chunk = ByteBuffer.allocate(64 * 1024);
    load.scheduleAtFixedRate(
        () -> {
          for (int i = 0; i < conns.size(); i++) {
            try {
              SocketChannel c = conns.get(i);
              if (c.isConnectionPending()) {
                c.finishConnect();
              }
              if (c.isConnected()) {
                chunk.clear();
                c.write(chunk);
              }
            } catch (IOException e) {
              closeQuietly(conns.get(i));
              conns.set(i, open(host, port));
            }
          }
        },
        100,
        100,
        TimeUnit.MILLISECONDS);
  }

  private SocketChannel open(String host, int port) {
    try {
      SocketChannel c = hostileChannel();
      c.connect(new InetSocketAddress(host, port));
      synchronized (hostile) {
        hostile.add(c);
      }
      return c;
    } catch (IOException e) {
      throw new IllegalStateException("cannot open a connection to " + host + ":" + port, e);
    }
  }

  /** A non-blocking socket bound to the next of the hostile addresses. */
  private synchronized SocketChannel hostileChannel() throws IOException {
    SocketChannel c = SocketChannel.open();
    c.configureBlocking(false);
    c.bind(new InetSocketAddress("127.0.1." + (1 + from++ % HOSTS), 0));
    return c;
  }

  private static void closeQuietly(SocketChannel c) {
    try {
      c.close();
    } catch (IOException e) {
      // going anyway
    }
  }
}
