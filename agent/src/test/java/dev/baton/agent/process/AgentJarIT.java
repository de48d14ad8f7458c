package dev.baton.agent.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.agent.config.AgentConfig;
import dev.baton.agent.testing.AgentProcess;
import dev.baton.agent.testing.AgentSandbox;
import dev.baton.agent.testing.HoldKeys;
import dev.baton.testkit.ByteRecorder;
import dev.baton.testkit.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped jar, one process per simulated pod, reaching the mock API server through a kubeconfig
 * (KUBECONFIG) as it would outside a cluster: leadership over HTTP, an old agent that is SIGKILLed
 * (its gate key runs out before the next gate opens), and the errors it exits with.
 */
@Timeout(90)
class AgentJarIT {

  private static final Duration CONFIRM_WITHIN = Duration.ofSeconds(2);

  @TempDir Path dir;
  private AgentSandbox sandbox;
  private final List<AgentProcess> processes = new java.util.ArrayList<>();

  @AfterEach
  void stop() {
    processes.forEach(AgentProcess::close);
    if (sandbox != null) {
      sandbox.close();
    }
  }

  private AgentProcess startAgent(String pod) throws IOException {
    Map<String, String> env = new HashMap<>(sandbox.env(pod, CONFIRM_WITHIN, true));
    env.put(AgentConfig.LISTEN, "127.0.0.1:" + FreePorts.any());
    env.put("KUBECONFIG", sandbox.kubeconfig(dir).toString());
    AgentProcess p = AgentProcess.start(env, dir.resolve(pod + ".log"));
    processes.add(p);
    return p;
  }

  /**
   * A killed agent lets nothing go: its successor opens only once it has watched the dead hold go
   * unrenewed for a whole confirmWithin by its own clock, never before. That wait may start before
   * the kill (a follower watches the hold too), never before the hold's last renewal: the test
   * kills the agent right after a renewal it saw, and measures from a read sent before that
   * renewal.
   */
  @Test
  void aKilledLeadersAgentKeepsTheNextGateShutUntilItsHoldWentStale() throws Exception {
    sandbox = new AgentSandbox().pods(2).startOperator();
    AgentProcess p0 = startAgent("worker-0");
    AgentProcess p1 = startAgent("worker-1");
    await().atMost(Duration.ofSeconds(20)).until(() -> p0.ready() && p1.ready());
    sandbox.group();
    String leader = sandbox.awaitLeader();
    String next = leader.equals("worker-0") ? "worker-1" : "worker-0";
    AgentProcess old = leader.equals("worker-0") ? p0 : p1;
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> old.get("/v1/leadership").body().contains("\"leader\":true"));
    assertThat(old.get("/v1/leadership").body())
        .contains("\"pod\":\"" + leader + "\"")
        .contains("\"group\":\"workers\"");
    try (Socket s = connect(sandbox.gatePort(leader))) {
      assertThat(echoes(s)).isTrue();
    }

    String before = HoldKeys.value(sandbox.cluster.redis);
    long lastRenewalNoSooner = System.nanoTime();
    long giveUp = lastRenewalNoSooner + CONFIRM_WITHIN.toNanos();
    while (true) {
      long sent = System.nanoTime();
      if (!before.equals(HoldKeys.value(sandbox.cluster.redis))) {
        break;
      }
      assertThat(sent - giveUp).as("the leader's agent renews its hold").isNegative();
      lastRenewalNoSooner = sent;
    }
    old.kill();
    assertThat(HoldKeys.state(sandbox.cluster.redis)).as("the dead agent's hold").isEqualTo('H');
    assertThat(HoldKeys.holderPod(sandbox.cluster.redis)).isEqualTo(leader);
    sandbox.cluster.deletePod(leader);
    assertThat(sandbox.awaitLeaderOtherThan(leader)).isEqualTo(next);

    // Poll the new leader's gate: it opens once it watched the dead hold for confirmWithin.
    long[] opened = new long[1];
    await()
        .atMost(CONFIRM_WITHIN.plusSeconds(5))
        .pollInterval(Duration.ofMillis(10))
        .until(
            () -> {
              try (Socket s = connect(sandbox.gatePort(next))) {
                if (echoes(s)) {
                  opened[0] = System.nanoTime();
                  return true;
                }
              }
              return false;
            });
    assertThat(opened[0] - lastRenewalNoSooner)
        .as("opened a whole confirmWithin after the dead hold's last renewal, at the earliest")
        .isGreaterThanOrEqualTo(CONFIRM_WITHIN.toNanos());
    assertThat(HoldKeys.holderPod(sandbox.cluster.redis)).isEqualTo(next);
  }

  /**
   * The lock path of the shipped jar, whose shading leaves out the parts of Redisson the agent
   * never calls: a class it does call but lacks would fail here, not in the in-process tests.
   */
  @Test
  void theShippedJarTakesRenewsAndReleasesAFencedLock() throws Exception {
    sandbox = new AgentSandbox().pods(1).startOperator();
    sandbox.createLock("migration");
    AgentProcess p = startAgent("worker-0");
    await().atMost(Duration.ofSeconds(20)).until(p::ready);
    String key = "baton:{shop/migration}:lock";

    var taken = p.send("POST", "/v1/locks/shop/migration?ttl=30s&wait=2s");
    assertThat(taken.statusCode()).as(taken.body()).isEqualTo(200);
    assertThat(taken.body()).containsPattern("\"token\":[1-9]");
    assertThat(sandbox.cluster.redis.command("GET", key)).contains("worker-0");
    var renewed = p.send("POST", "/v1/locks/shop/migration/renew");
    assertThat(renewed.statusCode()).as(renewed.body()).isEqualTo(200);
    var released = p.send("DELETE", "/v1/locks/shop/migration");
    assertThat(released.statusCode()).as(released.body()).isEqualTo(200);
    assertThat(sandbox.cluster.redis.command("EXISTS", key)).contains("0");
    assertThat(p.send("POST", "/v1/locks/shop/migration/renew").statusCode()).isEqualTo(409);

    // An owner below the pod, a JSON body, and the notice of a hold at risk before it ends.
    var owned = p.send("POST", "/v1/locks/shop/migration", "{\"ttl\":\"1s\",\"owner\":\"job-1\"}");
    assertThat(owned.statusCode()).as(owned.body()).isEqualTo(200);
    assertThat(p.send("DELETE", "/v1/locks/shop/migration").statusCode()).isEqualTo(409);
    long validUntil = System.nanoTime() + validForMillis(owned.body()) * 1_000_000;
    var risk = p.send("GET", "/v1/locks/shop/migration?owner=job-1&wait=5s");
    assertThat(System.nanoTime()).as("told at risk before the end").isLessThan(validUntil);
    assertThat(risk.body()).contains("\"held\":true").contains("\"atRisk\":true");
    var lost = p.send("GET", "/v1/locks/shop/migration?owner=job-1&wait=5s&atRisk=true");
    assertThat(lost.body()).contains("\"held\":false");
    // Redis lets the key go a little after the validity (the drift allowance): Dapr's lock takes
    // no wait, so it waits for that here.
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> sandbox.cluster.redis.command("EXISTS", key).contains("0"));

    // Dapr's lock API and leader-elector's answer, as those projects' users call them.
    String dapr = "{\"resourceId\":\"migration\",\"lockOwner\":\"vader\",\"expiryInSeconds\":60}";
    var locked = p.send("POST", "/v1.0-alpha1/lock/lockstore", dapr);
    assertThat(locked.body()).contains("\"success\":true").containsPattern("\"token\":[1-9]");
    var unlocked =
        p.send(
            "POST",
            "/v1.0-alpha1/unlock/lockstore",
            "{\"resourceId\":\"migration\",\"lockOwner\":\"vader\"}");
    assertThat(unlocked.body()).isEqualTo("{\"status\":0}");

    // The answers' words, as the jar gives them.
    assertThat(p.send("POST", "/v1/locks/shop/migration?ttl=30s&owner=job-1").statusCode())
        .isEqualTo(200);
    var again = p.send("POST", "/v1/locks/shop/migration?ttl=30s&owner=job-1");
    assertThat(again.statusCode()).isEqualTo(409);
    assertThat(again.body()).contains("holds lock shop/migration already: renew it");
    var byPod = p.send("DELETE", "/v1/locks/shop/migration");
    assertThat(byPod.statusCode()).isEqualTo(409);
    assertThat(byPod.body())
        .contains("lock shop/migration is not held by pod shop/worker-0")
        .contains("(owner 'job-1') holds it now");
    var other = p.send("POST", "/v1/locks/shop/migration?owner=job-2&wait=100ms");
    assertThat(other.statusCode()).isEqualTo(409);
    assertThat(other.body())
        .contains("lock shop/migration is held by shop/worker-0 (owner 'job-1')");
    assertThat(p.send("POST", "/v1/locks/shop/x?ttl=2h").body())
        .contains("parameter 'ttl' must be between 1s and 1h, as a RedisLock's ttl, not 2h");
    assertThat(p.send("POST", "/v1/locks/shop/x?ttl=-5s").body())
        .contains("parameter 'ttl' must be positive, not -5s");
    // An unknown key is answered at once, whatever the wait: the client would give up at 10 s.
    assertThat(p.send("POST", "/v1/locks/shop/no-such-lock?wait=10m").statusCode()).isEqualTo(404);
    assertThat(p.send("DELETE", "/v1/locks/shop/migration?owner=job-1").statusCode())
        .isEqualTo(200);
    assertThat(p.get("/").body()).isEqualTo("{\"name\":\"\"}");
    assertThat(p.log()).doesNotContain("Exception").doesNotContain("NoClassDefFoundError");
    p.terminate();
    assertThat(p.awaitExit(Duration.ofSeconds(20)))
        .as("a graceful stop exits 0: the JVM's default on SIGTERM is 143, shown as Error")
        .isZero();
  }

  private static long validForMillis(String body) {
    var m = java.util.regex.Pattern.compile("\"validForMillis\":(\\d+)").matcher(body);
    assertThat(m.find()).as(body).isTrue();
    return Long.parseLong(m.group(1));
  }

  @Test
  void aMissingPodNameEndsTheAgentWithAnErrorNamingIt() throws Exception {
    sandbox = new AgentSandbox();
    Map<String, String> env =
        Map.of("POD_NAMESPACE", "shop", "KUBECONFIG", sandbox.kubeconfig(dir).toString());
    AgentProcess p = AgentProcess.start(env, dir.resolve("no-name.log"));
    processes.add(p);
    assertThat(p.awaitExit(Duration.ofSeconds(20))).isNotZero();
    assertThat(p.log()).contains("POD_NAME");
  }

  @Test
  void aGatePortInUseEndsTheAgentWithAnErrorNamingThePort() throws Exception {
    sandbox = new AgentSandbox().pods(1);
    try (ServerSocket taken = new ServerSocket(0)) {
      Map<String, String> env = new HashMap<>(sandbox.env("worker-0", CONFIRM_WITHIN, false));
      env.put(AgentConfig.GATE, taken.getLocalPort() + ":127.0.0.1:9");
      env.put("KUBECONFIG", sandbox.kubeconfig(dir).toString());
      AgentProcess p = AgentProcess.start(env, dir.resolve("port.log"));
      processes.add(p);
      assertThat(p.awaitExit(Duration.ofSeconds(20))).isNotZero();
      assertThat(p.log()).contains("gate port " + taken.getLocalPort());
    }
  }

  @Test
  void anAgentStartsWhileRedisIsDownAndAnswersLocksWith503() throws Exception {
    sandbox = new AgentSandbox().pods(1);
    Map<String, String> env = new HashMap<>(sandbox.env("worker-0", CONFIRM_WITHIN, false));
    int port = FreePorts.any();
    env.put(AgentConfig.LISTEN, "127.0.0.1:" + port);
    env.put(AgentConfig.REDIS_URL, "redis://127.0.0.1:" + FreePorts.any());
    env.put("KUBECONFIG", sandbox.kubeconfig(dir).toString());
    AgentProcess p = AgentProcess.start(env, dir.resolve("redis-down.log"));
    processes.add(p);
    await().atMost(Duration.ofSeconds(20)).until(p::ready);
    assertThat(p.get("/v1/leadership").body()).contains("\"leader\":false");
    var lock =
        java.net.http.HttpClient.newHttpClient()
            .send(
                java.net.http.HttpRequest.newBuilder(
                        java.net.URI.create("http://127.0.0.1:" + port + "/v1/locks/shop/x?ttl=1s"))
                    .POST(java.net.http.HttpRequest.BodyPublishers.noBody())
                    .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
    assertThat(lock.statusCode()).isEqualTo(503);
    assertThat(p.log()).doesNotContain("Exception");
  }

  private static Socket connect(int port) throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), port);
    s.setSoTimeout(2000);
    return s;
  }

  /** Whether a stamped round trip through the gate came back; false when the gate reset it. */
  private static boolean echoes(Socket s) {
    try {
      byte[] frame = ByteRecorder.frame();
      s.getOutputStream().write(frame);
      InputStream in = s.getInputStream();
      return java.util.Arrays.equals(frame, in.readNBytes(frame.length));
    } catch (IOException e) {
      return false;
    }
  }
}
