package dev.baton.agent.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.agent.config.AgentConfig;
import dev.baton.agent.testing.AgentProcess;
import dev.baton.agent.testing.AgentSandbox;
import dev.baton.agent.testing.GateKeys;
import dev.baton.testkit.ByteRecorder;
import dev.baton.testkit.Kubeconfig;
import dev.baton.testkit.PausableProxy;
import dev.baton.testkit.StampedWriter;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gate's exclusivity under ordinary faults, with the shipped jar in a process per pod, judged
 * by what reached the applications ({@link ByteRecorder}, checked again as the sandbox closes): a
 * gate key lost from Redis (deleted, or Redis restarted empty) while the old leader's API reads
 * hang, an old agent frozen (SIGSTOP) past {@code confirmWithin} with a client writing through it,
 * a leader's agent cut off from Redis alone, and a lost key under a leader that keeps its
 * connections.
 */
@Timeout(120)
class GateFaultsIT {

  private static final Duration CONFIRM_WITHIN = Duration.ofSeconds(2);
  private static final Duration WRITE_EVERY = Duration.ofMillis(2);

  @TempDir Path dir;
  private AgentSandbox sandbox;
  private final List<AutoCloseable> closing = new ArrayList<>();
  private final Map<String, AgentProcess> agents = new HashMap<>();
  private final Map<String, PausableProxy> apiProxies = new HashMap<>();
  private final Map<String, PausableProxy> redisProxies = new HashMap<>();
  private final java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();

  @AfterEach
  void stop() throws Exception {
    for (int i = closing.size() - 1; i >= 0; i--) {
      closing.get(i).close();
    }
    if (sandbox != null) {
      sandbox.close(); // asserts: no byte reached a demoted pod's application
    }
  }

  /** Two pods, each with an agent process that reaches the API (and Redis) through proxies. */
  private void start(boolean redisProxies) throws IOException {
    sandbox = new AgentSandbox().pods(2).startOperator();
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
      if (redisProxies) {
        PausableProxy redisProxy = PausableProxy.to("127.0.0.1", sandbox.cluster.redis.port());
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

  private String awaitLeadingAgent() {
    String leader = sandbox.awaitLeader();
    await().atMost(Duration.ofSeconds(10)).until(() -> leads(leader));
    return leader;
  }

  private boolean leads(String pod) {
    var r = agents.get(pod).get("/v1/leadership");
    return r != null && r.body().contains("\"leader\":true");
  }

  /** A GET on the agent's probes listener (BATON_AGENT_HEALTH_LISTEN), as the kubelet's. */
  private java.net.http.HttpResponse<String> probe(String pod, String path) throws Exception {
    return http.send(
        java.net.http.HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + agents.get(pod).probesPort() + path))
            .timeout(Duration.ofSeconds(5))
            .build(),
        java.net.http.HttpResponse.BodyHandlers.ofString());
  }

  private static String other(String pod) {
    return pod.equals("worker-0") ? "worker-1" : "worker-0";
  }

  /** A pooled client writing through {@code pod}'s gate, seen to reach its application. */
  private StampedWriter writerThrough(String pod) {
    long before = sandbox.bytes.frames(pod);
    StampedWriter w = StampedWriter.start(sandbox.gatePort(pod), WRITE_EVERY);
    closing.add(w);
    await().atMost(Duration.ofSeconds(5)).until(() -> sandbox.bytes.frames(pod) > before + 10);
    return w;
  }

  /** Polls {@code pod}'s gate with stamped round trips until one comes back. */
  private void awaitGateOpen(String pod, Duration within) {
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

  /** Goes on writing through the new gate and the old connection for a while, then checks. */
  private void assertNoLateBytes(StampedWriter old, String next) throws InterruptedException {
    try (StampedWriter fresh = StampedWriter.start(sandbox.gatePort(next), WRITE_EVERY)) {
      Thread.sleep(500);
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
   * at once: the old gate may still be open. The new gate must open, and nothing reach the old app.
   */
  private void handOverWhileTheOldReadsHang(Runnable fault, Duration openWithin) throws Exception {
    start(false);
    String old = awaitLeadingAgent();
    String next = other(old);
    StampedWriter w = writerThrough(old);

    apiProxies.get(old).pause();
    sandbox.cluster.setReady(old, false);
    assertThat(sandbox.awaitLeaderOtherThan(old)).isEqualTo(next);
    fault.run();

    awaitGateOpen(next, openWithin);
    assertNoLateBytes(w, next);
    assertThat(agents.get(next).log() + agents.get(old).log())
        .as("the key's loss was met: a take that waits, or a re-take within the deadline")
        .containsAnyOf(
            "this gate opens only after holding the key", "was lost from Redis while this gate");
    apiProxies.get(old).resume();
  }

  @Test
  void theKeyDeletedWhileTheOldLeadersApiReadsHangOpensNoSecondGate() throws Exception {
    handOverWhileTheOldReadsHang(
        () -> sandbox.cluster.redis.command("DEL", GateKeys.KEY), CONFIRM_WITHIN.multipliedBy(3));
  }

  @Test
  void redisRestartedEmptyMidHandOverOpensNoSecondGate() throws Exception {
    handOverWhileTheOldReadsHang(
        () -> sandbox.cluster.redis.restart(false), CONFIRM_WITHIN.multipliedBy(5));
  }

  /**
   * Redis comes back empty while the old agent can reach neither the API server nor Redis, so its
   * gate stays open until its own deadline; the operator, its state lost too, gives the new leader
   * another term meanwhile. The new leader's hold of the absent key, dropped for the new term, must
   * not be marked released (a released key is taken at once): it runs out instead.
   */
  @Test
  void redisRestartedEmptyWhileTheOldAgentReachesNothingOpensNoSecondGate() throws Exception {
    start(true);
    String old = awaitLeadingAgent();
    String next = other(old);
    StampedWriter w = writerThrough(old);

    apiProxies.get(old).pause();
    redisProxies.get(old).pause();
    sandbox.cluster.setReady(old, false);
    assertThat(sandbox.awaitLeaderOtherThan(old)).isEqualTo(next);
    sandbox.cluster.redis.restart(false);

    awaitGateOpen(next, CONFIRM_WITHIN.multipliedBy(5));
    assertNoLateBytes(w, next);
    apiProxies.get(old).resume();
    redisProxies.get(old).resume();
  }

  @Test
  void aFrozenOldAgentRelaysNothingLateAndAnswersNotLeaderWhenItWakes() throws Exception {
    start(false);
    String old = awaitLeadingAgent();
    String next = other(old);
    // A pool of connections, spread over every event loop of the old gate.
    List<StampedWriter> pool = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      pool.add(writerThrough(old));
    }

    agents.get(old).freeze();
    try {
      sandbox.cluster.setReady(old, false);
      assertThat(sandbox.awaitLeaderOtherThan(old)).isEqualTo(next);
      awaitGateOpen(next, CONFIRM_WITHIN.multipliedBy(3));
      // The pool goes on writing into the frozen gate's sockets; the new gate forwards meanwhile.
      try (StampedWriter fresh = StampedWriter.start(sandbox.gatePort(next), WRITE_EVERY)) {
        Thread.sleep(300);
        assertThat(fresh.broken()).isFalse();
      }
    } finally {
      agents.get(old).thaw();
    }
    // The first answer after it woke, whenever its HTTP server gets to it: not the leader.
    java.net.http.HttpResponse<String> answer;
    try {
      answer =
          await()
              .atMost(Duration.ofSeconds(10))
              .until(() -> agents.get(old).get("/v1/leadership"), r -> r != null);
    } catch (org.awaitility.core.ConditionTimeoutException e) {
      throw new AssertionError(agents.get(old).threadDump() + "\n" + agents.get(old).log(), e);
    }
    assertThat(answer.body()).contains("\"leader\":false");
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> pool.stream().allMatch(StampedWriter::broken));
    for (StampedWriter w : pool) {
      assertNoLateBytes(w, next);
    }
  }

  @Test
  void aLeaderCutOffFromRedisShutsItsGateAndIsNotReadySoLeadershipMoves() throws Exception {
    start(true);
    String old = awaitLeadingAgent();
    String next = other(old);
    StampedWriter w = writerThrough(old);

    redisProxies.get(old).pause();
    await().atMost(CONFIRM_WITHIN.plusSeconds(3)).until(w::broken);
    await()
        .atMost(CONFIRM_WITHIN.plusSeconds(5))
        .until(
            () -> {
              var r = probe(old, "/readyz");
              return r.statusCode() == 503 && r.body().contains("Redis");
            });
    // The kubelet's part: the agent's readiness probe fails, so the pod is not ready.
    sandbox.cluster.setReady(old, false);
    assertThat(sandbox.awaitLeaderOtherThan(old)).isEqualTo(next);
    awaitGateOpen(next, CONFIRM_WITHIN.multipliedBy(3));
    assertNoLateBytes(w, next);
    assertThat(probe(next, "/readyz").statusCode()).isEqualTo(200);
    assertThat(probe(next, "/v1/locks/shop/x").statusCode())
        .as("the probes' listener serves no locks")
        .isEqualTo(404);
    redisProxies.get(old).resume();
  }

  @Test
  void aKeyLostUnderALeaderIsTakenAgainAndItsConnectionsKept() throws Exception {
    start(false);
    String leader = awaitLeadingAgent();
    StampedWriter w = writerThrough(leader);

    sandbox.cluster.redis.command("DEL", GateKeys.KEY);
    await()
        .atMost(CONFIRM_WITHIN.multipliedBy(2))
        .until(() -> agents.get(leader).log().contains("was lost from Redis while this gate"));
    assertThat(GateKeys.holderPod(sandbox.cluster.redis)).isEqualTo(leader);
    assertThat(GateKeys.state(sandbox.cluster.redis)).as("held and proven").isEqualTo('H');
    long frames = sandbox.bytes.frames(leader);
    await().atMost(Duration.ofSeconds(5)).until(() -> sandbox.bytes.frames(leader) > frames + 10);
    assertThat(w.broken()).as("the leader's connection kept").isFalse();
    assertThat(leads(leader)).isTrue();
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(
            () ->
                assertThat(agents.get(other(leader)).get("/v1/leadership").body())
                    .contains("\"leader\":false")
                    .contains("\"leaderPod\":\"" + leader + "\""));
    String follower = other(leader);
    assertThat(probe(follower, "/metrics").body())
        .containsPattern("(?m)^baton_agent_redis_up 1$")
        .containsPattern("(?m)^baton_agent_redis_evicts_gate_key 0$");
    // A memory limit with an eviction policy: the key may go, and the agents say so.
    sandbox.cluster.redis.command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
    sandbox.cluster.redis.command("CONFIG", "SET", "maxmemory", "512mb");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                probe(follower, "/metrics")
                    .body()
                    .contains("\nbaton_agent_redis_evicts_gate_key 1\n"));
    assertThat(agents.get(follower).log()).contains("set maxmemory-policy noeviction");
    // The leader's agent reads it too (it once only read its key, so it always said -1).
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                probe(leader, "/metrics")
                    .body()
                    .contains("\nbaton_agent_redis_evicts_gate_key 1\n"));
  }
}
