package dev.baton.agent.testing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.agent.config.AgentConfig;
import dev.baton.testkit.ByteRecorder;
import dev.baton.testkit.Kubeconfig;
import dev.baton.testkit.PausableProxy;
import dev.baton.testkit.StampedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Two pods with the shipped agent jar in a process each, their API (and, when asked, their Redis)
 * reached through proxies a test can pause or point elsewhere, a pooled client per gate, and the
 * byte checks of {@link AgentSandbox} when it closes: the harness of the gate's fault tests.
 */
public final class ProcessAgents implements AutoCloseable {

  public static final Duration CONFIRM_WITHIN = Duration.ofSeconds(2);
  public static final Duration WRITE_EVERY = Duration.ofMillis(2);

  public final AgentSandbox sandbox;
  public final Map<String, AgentProcess> agents = new HashMap<>();
  public final Map<String, PausableProxy> apiProxies = new HashMap<>();
  public final Map<String, PausableProxy> redisProxies = new HashMap<>();
  private final Closing closing = new Closing();
  private final HttpClient http = HttpClient.newHttpClient();

  /**
   * @param redisProxies whether each agent reaches Redis through a proxy of its own
   * @param redisPort the Redis the agents use: the sandbox's, or another (the operator keeps the
   *     sandbox's)
   */
  public ProcessAgents(Path dir, boolean redisProxies, int redisPort) throws IOException {
    sandbox = new AgentSandbox().pods(2).startOperator();
    int redis = redisPort < 0 ? sandbox.cluster.redis.port() : redisPort;
    URI api = sandbox.api();
    for (String pod : List.of("worker-0", "worker-1")) {
      PausableProxy apiProxy = PausableProxy.to(api.getHost(), api.getPort());
      closing.add(apiProxy);
      apiProxies.put(pod, apiProxy);
      Map<String, String> env = new HashMap<>(sandbox.env(pod, CONFIRM_WITHIN, true));
      // Ports the agents pick themselves: a port picked here could be taken before they bind.
      env.put(AgentConfig.LISTEN, "127.0.0.1:0");
      env.put(AgentConfig.HEALTH_LISTEN, "127.0.0.1:0");
      Path kubeconfig =
          Kubeconfig.write(
              dir.resolve(pod + ".kubeconfig"), "http://127.0.0.1:" + apiProxy.port(), "shop");
      env.put("KUBECONFIG", kubeconfig.toString());
      env.put(AgentConfig.REDIS_URL, "redis://127.0.0.1:" + redis);
      if (redisProxies) {
        PausableProxy redisProxy = PausableProxy.to("127.0.0.1", redis);
        closing.add(redisProxy);
        this.redisProxies.put(pod, redisProxy);
        env.put(AgentConfig.REDIS_URL, "redis://127.0.0.1:" + redisProxy.port());
      }
      AgentProcess p = AgentProcess.start(env, dir.resolve(pod + ".log"));
      closing.add(p);
      agents.put(pod, p);
    }
    for (AgentProcess p : agents.values()) {
      await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                if (!p.alive()) {
                  throw new AssertionError("an agent ended at its start:\n" + p.log());
                }
                return p.ready();
              });
    }
    sandbox.group();
  }

  public ProcessAgents(Path dir, boolean redisProxies) throws IOException {
    this(dir, redisProxies, -1);
  }

  public String awaitLeadingAgent() {
    String leader = sandbox.awaitLeader();
    await().atMost(Duration.ofSeconds(10)).until(() -> leads(leader));
    return leader;
  }

  public boolean leads(String pod) {
    var r = agents.get(pod).get("/v1/leadership");
    return r != null && r.body().contains("\"leader\":true");
  }

  /** A GET on the agent's probes listener (BATON_AGENT_HEALTH_LISTEN), as the kubelet's. */
  public HttpResponse<String> probe(String pod, String path) throws Exception {
    return http.send(
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + agents.get(pod).probesPort() + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  public static String other(String pod) {
    return pod.equals("worker-0") ? "worker-1" : "worker-0";
  }

  /** A pooled client writing through {@code pod}'s gate, seen to reach its application. */
  public StampedWriter writerThrough(String pod) {
    long before = sandbox.bytes.frames(pod);
    StampedWriter w = StampedWriter.start(sandbox.gatePort(pod), WRITE_EVERY);
    closing.add(w);
    await().atMost(Duration.ofSeconds(5)).until(() -> sandbox.bytes.frames(pod) > before + 10);
    return w;
  }

  /** Polls {@code pod}'s gate with stamped round trips until one comes back. */
  public void awaitGateOpen(String pod, Duration within) {
    await()
        .atMost(within)
        .pollInterval(Duration.ofMillis(10))
        .until(() -> roundTrip(sandbox.gatePort(pod)));
  }

  private static boolean roundTrip(int port) {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      s.setSoTimeout(2000);
      byte[] frame = ByteRecorder.frame();
      s.getOutputStream().write(frame);
      InputStream in = s.getInputStream();
      return Arrays.equals(frame, in.readNBytes(frame.length));
    } catch (IOException e) {
      return false;
    }
  }

  /**
   * Goes on writing through the new gate and the old connection for a while, opening new
   * connections to the old gate too, then checks every byte.
   */
  public void assertNoLateBytes(StampedWriter old, String next) throws InterruptedException {
    String from = other(next);
    try (StampedWriter fresh = StampedWriter.start(sandbox.gatePort(next), WRITE_EVERY)) {
      for (int i = 0; i < 5; i++) {
        Thread.sleep(100);
        assertThat(roundTrip(sandbox.gatePort(from)))
            .as("a new connection through the old gate came back")
            .isFalse();
      }
      assertThat(fresh.broken()).as("the new leader's connection").isFalse();
    }
    assertThat(old.broken()).as("the old leader's pooled connection was cut").isTrue();
    assertThat(sandbox.bytes.violations())
        .as("bytes that reached the demoted pod's application")
        .isEmpty();
  }

  /**
   * A pooled client writes through the leader's gate; then the leader's API reads hang (its agent
   * sees no demotion, and confirms nothing), the operator moves leadership, and {@code fault} runs
   * at once: the old gate may still be open. The new gate must open, nothing reach the old app, and
   * the old gate take no new connection once the new one served.
   *
   * @return the old leader and the new
   */
  public List<String> handOverWhileTheOldReadsHang(Runnable fault, Duration openWithin)
      throws Exception {
    String old = awaitLeadingAgent();
    String next = other(old);
    StampedWriter w = writerThrough(old);

    apiProxies.get(old).pause();
    sandbox.cluster.setReady(old, false);
    assertThat(sandbox.awaitLeaderOtherThan(old)).isEqualTo(next);
    sandbox.bytes.handOver(old, next);
    fault.run();

    awaitGateOpen(next, openWithin);
    assertNoLateBytes(w, next);
    apiProxies.get(old).resume();
    return List.of(old, next);
  }

  @Override
  public void close() throws Exception {
    closing.close();
    sandbox.close(); // asserts: no byte reached a demoted pod's application
  }
}
