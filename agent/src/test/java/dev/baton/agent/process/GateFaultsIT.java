package dev.baton.agent.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.agent.testing.AgentProcess;
import dev.baton.agent.testing.AgentSandbox;
import dev.baton.agent.testing.HoldKeys;
import dev.baton.agent.testing.ProcessAgents;
import dev.baton.testkit.ByteRecorder;
import dev.baton.testkit.PausableProxy;
import dev.baton.testkit.StampedWriter;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
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

  private static final Duration CONFIRM_WITHIN = ProcessAgents.CONFIRM_WITHIN;
  private static final Duration WRITE_EVERY = ProcessAgents.WRITE_EVERY;

  @TempDir Path dir;
  private ProcessAgents run;
  private AgentSandbox sandbox;
  private Map<String, AgentProcess> agents;
  private Map<String, PausableProxy> apiProxies;
  private Map<String, PausableProxy> redisProxies;

  /** The pod whose agent led first, once {@link #startWithALeader} found it, and the other. */
  private String old;

  private String next;

  @AfterEach
  void stop() throws Exception {
    if (run != null) {
      run.close(); // asserts: no byte reached a demoted pod's application
    }
  }

  /** Two pods, each with an agent process that reaches the API (and Redis) through proxies. */
  private void start(boolean withRedisProxies) throws IOException {
    run = new ProcessAgents(dir, withRedisProxies);
    sandbox = run.sandbox;
    agents = run.agents;
    apiProxies = run.apiProxies;
    redisProxies = run.redisProxies;
  }

  /** {@link #start}, then the leader found: {@link #old}, and {@link #next} the other pod. */
  private void startWithALeader(boolean withRedisProxies) throws IOException {
    start(withRedisProxies);
    old = awaitLeadingAgent();
    next = other(old);
  }

  /** The old leader's pod made not ready (the kubelet's part): leadership moves to the next. */
  private void oldLeaderNotReady() {
    sandbox.cluster.setReady(old, false);
    assertThat(sandbox.awaitLeaderOtherThan(old)).isEqualTo(next);
  }

  private String awaitLeadingAgent() {
    return run.awaitLeadingAgent();
  }

  private boolean leads(String pod) {
    return run.leads(pod);
  }

  private java.net.http.HttpResponse<String> probe(String pod, String path) throws Exception {
    return run.probe(pod, path);
  }

  private static String other(String pod) {
    return ProcessAgents.other(pod);
  }

  private StampedWriter writerThrough(String pod) {
    return run.writerThrough(pod);
  }

  private void awaitGateOpen(String pod, Duration within) {
    run.awaitGateOpen(pod, within);
  }

  private void assertNoLateBytes(StampedWriter old, String next) throws InterruptedException {
    run.assertNoLateBytes(old, next);
  }

  private void handOverWhileTheOldReadsHang(Runnable fault, Duration openWithin) throws Exception {
    start(false);
    List<String> moved = run.handOverWhileTheOldReadsHang(fault, openWithin);
    assertThat(agents.get(moved.get(1)).log() + agents.get(moved.get(0)).log())
        .as("the key's loss was met: a take that waits, or a re-take within the deadline")
        .containsAnyOf(
            "the gates open only after holding the key", "was lost from Redis while the gates");
  }

  @Test
  void theKeyDeletedWhileTheOldLeadersApiReadsHangOpensNoSecondGate() throws Exception {
    handOverWhileTheOldReadsHang(
        () -> sandbox.cluster.redis.command("DEL", HoldKeys.KEY), CONFIRM_WITHIN.multipliedBy(3));
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
    startWithALeader(true);
    StampedWriter w = writerThrough(old);

    apiProxies.get(old).pause();
    redisProxies.get(old).pause();
    oldLeaderNotReady();
    sandbox.cluster.redis.restart(false);

    awaitGateOpen(next, CONFIRM_WITHIN.multipliedBy(5));
    assertNoLateBytes(w, next);
    apiProxies.get(old).resume();
    redisProxies.get(old).resume();
  }

  @Test
  void aFrozenOldAgentRelaysNothingLateAndAnswersNotLeaderWhenItWakes() throws Exception {
    startWithALeader(false);
    // A pool of connections, spread over every event loop of the old gate.
    List<StampedWriter> pool = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      pool.add(writerThrough(old));
    }

    agents.get(old).freeze();
    try {
      oldLeaderNotReady();
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
    startWithALeader(true);
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
    oldLeaderNotReady();
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

    sandbox.cluster.redis.command("DEL", HoldKeys.KEY);
    await()
        .atMost(CONFIRM_WITHIN.multipliedBy(2))
        .until(() -> agents.get(leader).log().contains("was lost from Redis while the gates"));
    assertThat(HoldKeys.holderPod(sandbox.cluster.redis)).isEqualTo(leader);
    assertThat(HoldKeys.state(sandbox.cluster.redis)).as("held and proven").isEqualTo('H');
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
                    .contains("\"leaderPod\":\"" + leader + "\"")
                    .as("the follower is told where the leader is, from its hold")
                    .contains(
                        "\"leaderIp\":\"" + sandbox.pod(leader).getStatus().getPodIP() + "\""));
    String follower = other(leader);
    assertThat(probe(follower, "/metrics").body())
        .containsPattern("(?m)^baton_agent_redis_up 1\\.0$")
        .containsPattern("(?m)^baton_agent_redis_evicts_gate_key 0\\.0$");
    // A memory limit with an eviction policy: the key may go, and the agents say so.
    sandbox.cluster.redis.command("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
    sandbox.cluster.redis.command("CONFIG", "SET", "maxmemory", "512mb");
    awaitSaysRedisEvictsTheGateKey(follower);
    assertThat(agents.get(follower).log()).contains("set maxmemory-policy noeviction");
    // The leader's agent reads it too (it once only read its key, so it always said -1).
    awaitSaysRedisEvictsTheGateKey(leader);
  }

  /** Until {@code pod}'s agent says in its metrics that Redis may evict the gate key. */
  private void awaitSaysRedisEvictsTheGateKey(String pod) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                probe(pod, "/metrics")
                    .body()
                    .contains("\nbaton_agent_redis_evicts_gate_key 1.0\n"));
  }
}
