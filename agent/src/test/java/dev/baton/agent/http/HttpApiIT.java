package dev.baton.agent.http;

import static dev.baton.agent.testing.AgentSandbox.ROLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.agent.BatonAgent;
import dev.baton.agent.testing.AgentSandbox;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.testkit.Sandbox;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The agent's HTTP API through real sockets, against the real operator: leadership, its long poll
 * and its events, fenced locks taken, renewed, refused, reaped and released (by an agent that
 * restarted too) and their long poll, and the answers to bad requests.
 */
@Timeout(60)
class HttpApiIT {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration CONFIRM_WITHIN = Duration.ofSeconds(2);

  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  private AgentSandbox sandbox;
  private BatonAgent a0;
  private BatonAgent a1;

  @BeforeEach
  void start() {
    sandbox = new AgentSandbox().pods(2).startOperator();
    a0 = sandbox.startAgent("worker-0", CONFIRM_WITHIN, true);
    a1 = sandbox.startAgent("worker-1", CONFIRM_WITHIN, true);
  }

  @AfterEach
  void stop() {
    sandbox.close();
  }

  @Test
  void leadershipIsAnsweredAndTheLongPollAnswersOnAChange() throws Exception {
    JsonNode before = getJson(a0, "/v1/leadership").body;
    assertThat(before.get("leader").asBoolean()).isFalse();
    assertThat(before.get("term").isNull()).isTrue();
    assertThat(before.get("pod").asText()).isEqualTo("worker-0");
    assertThat(before.has("group")).isTrue();
    assertThat(before.has("since")).isTrue();

    CompletableFuture<HttpResponse<String>> poll0 = longPoll(a0, "30s", false);
    CompletableFuture<HttpResponse<String>> poll1 = longPoll(a1, "30s", false);
    sandbox.group();
    String leader = sandbox.awaitLeader();
    BatonAgent leaderAgent = leader.equals("worker-0") ? a0 : a1;
    var answered = (leader.equals("worker-0") ? poll0 : poll1).get(10, TimeUnit.SECONDS);
    assertThat(answered.statusCode()).isEqualTo(200);
    JsonNode body = JSON.readTree(answered.body());
    assertThat(body.get("leader").asBoolean()).isTrue();
    assertThat(body.get("term").asLong())
        .isEqualTo(
            Long.parseLong(
                sandbox.pod(leader).getMetadata().getAnnotations().get("baton.dev/term")));
    assertThat(body.get("group").asText()).isEqualTo(AgentSandbox.GROUP);
    assertThat(body.get("since").asText()).isNotBlank();

    // The follower's poll is still waiting; a short one answers at its limit, unchanged.
    assertThat((leader.equals("worker-0") ? poll1 : poll0).isDone()).isFalse();
    var timedOut = getJson(leaderAgent, "/v1/leadership?wait=200ms&leader=false").body;
    assertThat(timedOut.get("leader").asBoolean()).isTrue();
    var atLimit = getJson(leaderAgent, "/v1/leadership?wait=100ms&leader=true").body;
    assertThat(atLimit.get("leader").asBoolean()).isTrue();

    // Demotion: a poll for "still leader" answers with leader false.
    CompletableFuture<HttpResponse<String>> demoted = longPoll(leaderAgent, "30s", true);
    sandbox.cluster.setReady(leader, false);
    JsonNode after = JSON.readTree(demoted.get(10, TimeUnit.SECONDS).body());
    assertThat(after.get("leader").asBoolean()).isFalse();
  }

  @Test
  void theEventStreamDeliversAnEventPerChange() throws Exception {
    HttpResponse<java.io.InputStream> stream =
        http.send(
            HttpRequest.newBuilder(uri(a0, "/v1/leadership/events")).build(),
            HttpResponse.BodyHandlers.ofInputStream());
    assertThat(stream.statusCode()).isEqualTo(200);
    assertThat(stream.headers().firstValue("Content-Type")).hasValue("text/event-stream");
    try (BufferedReader events =
        new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
      JsonNode first = nextEvent(events);
      assertThat(first.get("leader").asBoolean()).isFalse();
      sandbox.group();
      // worker-0 is the older pod, so the operator elects it; events follow until it leads.
      JsonNode leading;
      do {
        leading = nextEvent(events);
      } while (!leading.get("leader").asBoolean());
      assertThat(leading.get("term").asLong()).isPositive();
      assertThat(sandbox.cluster.leaders(ROLE)).containsExactly("worker-0");
    }
  }

  @Test
  void aLockIsTakenRenewedRefusedToAnotherPodReapedWithItsPodAndReleased() throws Exception {
    sandbox.createLock("migration");
    Reply taken = post(a0, "/v1/locks/shop/migration?ttl=30s&wait=2s");
    assertThat(taken.status).as(taken.body.toString()).isEqualTo(200);
    long token = taken.body.get("token").asLong();
    assertThat(token).isPositive();
    assertThat(taken.body.get("expiresAt").asText()).isNotBlank();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> "shop/worker-0".equals(lockStatus("migration").getHolder()));

    Reply renewed = post(a0, "/v1/locks/shop/migration/renew");
    assertThat(renewed.status).isEqualTo(200);
    assertThat(renewed.body.get("token").asLong()).isEqualTo(token);

    Reply refused = post(a1, "/v1/locks/shop/migration?ttl=30s&wait=100ms");
    assertThat(refused.status).isEqualTo(409);
    assertThat(refused.body.get("holder").asText()).isEqualTo("shop/worker-0");
    assertThat(delete(a1, "/v1/locks/shop/migration").status).isEqualTo(409);

    // By the RedisLock's name alone, in the pod's namespace, after the holder released it.
    Reply released = delete(a0, "/v1/locks/migration");
    assertThat(released.status).isEqualTo(200);
    Reply second = post(a1, "/v1/locks/migration?ttl=30s");
    assertThat(second.status).isEqualTo(200);
    assertThat(second.body.get("token").asLong()).isGreaterThan(token);
    assertThat(post(a0, "/v1/locks/migration/renew").status).isEqualTo(409);

    // The holder's pod goes: the operator deletes the lock at once, well before its 30 s ttl.
    sandbox.cluster.deletePod("worker-1");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                sandbox
                    .cluster
                    .redis
                    .command("EXISTS", "baton:{shop/migration}:lock")
                    .equals(":0"));
    Reply afterReap = post(a0, "/v1/locks/migration?ttl=10s");
    assertThat(afterReap.status).isEqualTo(200);
    assertThat(afterReap.body.get("token").asLong())
        .isGreaterThan(second.body.get("token").asLong());
  }

  /**
   * The JDK's server writes headers and body apart and leaves Nagle's algorithm on unless told:
   * every answer on a kept-alive connection then waits for the client's delayed ACK (about 40 ms).
   * The agent's server is made with it off (the time itself is the benchmark's to show).
   */
  @Test
  void theServerSendsWithNagleOff() {
    assertThat(System.getProperty("sun.net.httpserver.nodelay")).isEqualTo("true");
  }

  @Test
  void anUnknownKeyIs404AndMalformedParametersAre400() throws Exception {
    Reply unknown = post(a0, "/v1/locks/shop/no-such-lock?ttl=10s");
    assertThat(unknown.status).isEqualTo(404);
    assertThat(unknown.body.get("error").asText()).contains("shop/no-such-lock");

    for (String bad :
        new String[] {
          "/v1/leadership?wait=soon",
          "/v1/leadership?wait=1s&leader=maybe",
          "/v1/leadership?leader=true",
          "/v1/leadership?wait=1h",
          "/v1/leadership?color=blue"
        }) {
      Reply r = getJson(a0, bad);
      assertThat(r.status).as(bad).isEqualTo(400);
      assertThat(r.body.get("error").asText()).as(bad).isNotBlank();
    }
    assertThat(post(a0, "/v1/locks/shop/x?ttl=forever").status).isEqualTo(400);
    assertThat(post(a0, "/v1/locks/shop/x?ttl=1ms").status).isEqualTo(400);
    assertThat(post(a0, "/v1/locks/%7Bbraces%7D?ttl=1s").status).isEqualTo(400);
    assertThat(getJson(a0, "/v1/nothing").status).isEqualTo(404);

    var ready =
        http.send(
            HttpRequest.newBuilder(uri(a0, "/readyz")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(ready.statusCode()).isEqualTo(200);
    var metrics =
        http.send(
            HttpRequest.newBuilder(uri(a0, "/metrics")).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(metrics.body())
        .contains("baton_agent_leader 0")
        .contains("baton_agent_lock_requests_total{operation=\"acquire\",status=\"404\"} 1")
        .doesNotContain(sandbox.cluster.redis.url());
  }

  @Test
  void lockAnswersCarryTheValidityTheLibraryComputedNeverPastSendTimePlusTtl() throws Exception {
    sandbox.createLock("migration");
    Duration ttl = Duration.ofSeconds(10);
    Instant sent = Instant.now();
    Reply taken = post(a0, "/v1/locks/shop/migration?ttl=10s&wait=2s");
    assertThat(taken.status).as(taken.body.toString()).isEqualTo(200);
    assertThat(taken.body.get("key").asText()).isEqualTo("shop/migration");
    assertValidity(taken.body, sent, ttl);

    Instant renewSent = Instant.now();
    Reply renewed = post(a0, "/v1/locks/shop/migration/renew");
    assertThat(renewed.status).as(renewed.body.toString()).isEqualTo(200);
    assertThat(renewed.body.get("token").asLong()).isEqualTo(taken.body.get("token").asLong());
    assertValidity(renewed.body, renewSent, ttl);

    // The state answers the same hold, with the validity left since the renewal.
    Reply state = getJson(a0, "/v1/locks/shop/migration");
    assertThat(state.status).as(state.body.toString()).isEqualTo(200);
    assertThat(state.body.get("held").asBoolean()).isTrue();
    assertThat(state.body.get("token").asLong()).isEqualTo(taken.body.get("token").asLong());
    assertThat(state.body.get("holder").asText()).isEqualTo("shop/worker-0");
    assertValidity(state.body, renewSent, ttl);
  }

  @Test
  void aHoldOutlivesAnAgentRestartAndAHoldThatRanOutIsSaidToBeGone() throws Exception {
    sandbox.createLock("migration");
    Reply taken = post(a0, "/v1/locks/shop/migration?ttl=30s&wait=2s");
    assertThat(taken.status).as(taken.body.toString()).isEqualTo(200);
    long token = taken.body.get("token").asLong();

    // The same pod's agent restarts: it finds the pod's hold in Redis and renews and releases it.
    sandbox.stopAgent("worker-0");
    BatonAgent restarted = sandbox.startAgent("worker-0", CONFIRM_WITHIN, true);
    Instant sent = Instant.now();
    Reply renewed = post(restarted, "/v1/locks/shop/migration/renew?ttl=20s");
    assertThat(renewed.status).as(renewed.body.toString()).isEqualTo(200);
    assertThat(renewed.body.get("token").asLong()).isEqualTo(token);
    assertValidity(renewed.body, sent, Duration.ofSeconds(20));
    Reply released = delete(restarted, "/v1/locks/shop/migration");
    assertThat(released.status).as(released.body.toString()).isEqualTo(200);
    assertThat(released.body.get("released").asBoolean()).isTrue();
    assertThat(sandbox.cluster.redis.command("EXISTS", "baton:{shop/migration}:lock"))
        .isEqualTo(":0");

    // A hold whose ttl ran out while the agent was away is gone, and the answer says so.
    assertThat(post(restarted, "/v1/locks/shop/migration?ttl=1s").status).isEqualTo(200);
    sandbox.stopAgent("worker-0");
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () ->
                sandbox
                    .cluster
                    .redis
                    .command("EXISTS", "baton:{shop/migration}:lock")
                    .equals(":0"));
    BatonAgent again = sandbox.startAgent("worker-0", CONFIRM_WITHIN, true);
    String gone =
        "lock shop/migration is not held by this pod: its hold is gone (ttl ran out, or released)";
    Reply lateRenew = post(again, "/v1/locks/shop/migration/renew");
    assertThat(lateRenew.status).as(lateRenew.body.toString()).isEqualTo(409);
    assertThat(lateRenew.body.get("error").asText()).isEqualTo(gone);
    assertThat(lateRenew.body.get("holder").isNull()).isTrue();
    Reply lateRelease = delete(again, "/v1/locks/shop/migration");
    assertThat(lateRelease.status).as(lateRelease.body.toString()).isEqualTo(409);
    assertThat(lateRelease.body.get("error").asText()).isEqualTo(gone);
    assertThat(lateRelease.body.get("released").asBoolean()).isFalse();

    // Taken by another pod since: the answer names it.
    assertThat(post(a1, "/v1/locks/shop/migration?ttl=30s").status).isEqualTo(200);
    Reply taken1 = post(again, "/v1/locks/shop/migration/renew");
    assertThat(taken1.status).as(taken1.body.toString()).isEqualTo(409);
    assertThat(taken1.body.get("error").asText())
        .isEqualTo(
            "lock shop/migration is not held by this pod: its hold is gone (ttl ran out,"
                + " released, or taken by shop/worker-1)");
    assertThat(taken1.body.get("holder").asText()).isEqualTo("shop/worker-1");
  }

  @Test
  void aLongPollOnALockAnswersWhenTheHoldIsLostAndHeldWhenTheWaitRunsOut() throws Exception {
    sandbox.createLock("migration");
    Reply taken = post(a0, "/v1/locks/shop/migration?ttl=30s&wait=2s");
    assertThat(taken.status).as(taken.body.toString()).isEqualTo(200);

    // Nothing happens to the hold: the poll answers at its limit, still held.
    Reply atLimit = getJson(a0, "/v1/locks/shop/migration?wait=300ms");
    assertThat(atLimit.status).as(atLimit.body.toString()).isEqualTo(200);
    assertThat(atLimit.body.get("held").asBoolean()).isTrue();
    assertThat(atLimit.body.get("token").asLong()).isEqualTo(taken.body.get("token").asLong());
    assertThat(atLimit.body.get("validForMillis").asLong()).isPositive();
    // Another pod's agent sees it held by worker-0, not by its own pod.
    Reply other = getJson(a1, "/v1/locks/migration");
    assertThat(other.status).as(other.body.toString()).isEqualTo(200);
    assertThat(other.body.get("held").asBoolean()).isFalse();
    assertThat(other.body.get("holder").asText()).isEqualTo("shop/worker-0");

    // Redis loses the key: the waiting poll answers, not held.
    CompletableFuture<HttpResponse<String>> poll = lockPoll(a0, "shop/migration", "30s");
    Thread.sleep(500);
    assertThat(poll.isDone())
        .as("the poll waits while the lock is held: %s", poll.isDone() ? poll.join().body() : "")
        .isFalse();
    sandbox.cluster.redis.command("DEL", "baton:{shop/migration}:lock");
    HttpResponse<String> lost = poll.get(20, TimeUnit.SECONDS);
    assertThat(lost.statusCode()).as(lost.body()).isEqualTo(200);
    JsonNode lostBody = JSON.readTree(lost.body());
    assertThat(lostBody.get("held").asBoolean()).isFalse();
    assertThat(lostBody.get("token").isNull()).isTrue();
    assertThat(lostBody.get("holder").isNull()).isTrue();

    // The ttl runs out: the poll answers, not held.
    Reply shortHold = post(a0, "/v1/locks/shop/migration?ttl=2s");
    assertThat(shortHold.status).as(shortHold.body.toString()).isEqualTo(200);
    HttpResponse<String> ranOut = lockPoll(a0, "shop/migration", "30s").get(20, TimeUnit.SECONDS);
    assertThat(ranOut.statusCode()).as(ranOut.body()).isEqualTo(200);
    assertThat(JSON.readTree(ranOut.body()).get("held").asBoolean()).isFalse();
  }

  private static void assertValidity(JsonNode body, Instant sent, Duration ttl) {
    assertThat(body.get("validForMillis").asLong())
        .as(body.toString())
        .isPositive()
        .isLessThanOrEqualTo(ttl.toMillis());
    assertThat(Instant.parse(body.get("expiresAt").asText()))
        .as(body.toString())
        .isAfter(sent)
        .isBeforeOrEqualTo(sent.plus(ttl));
  }

  private CompletableFuture<HttpResponse<String>> lockPoll(BatonAgent a, String key, String wait) {
    return http.sendAsync(
        HttpRequest.newBuilder(uri(a, "/v1/locks/" + key + "?wait=" + wait)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private dev.baton.api.v1alpha1.RedisLockStatus lockStatus(String name) {
    RedisLock l =
        sandbox
            .cluster
            .client
            .resources(RedisLock.class)
            .inNamespace(Sandbox.NS)
            .withName(name)
            .get();
    return l == null || l.getStatus() == null
        ? new dev.baton.api.v1alpha1.RedisLockStatus()
        : l.getStatus();
  }

  private static JsonNode nextEvent(BufferedReader events) throws Exception {
    String line;
    String event = null;
    while ((line = events.readLine()) != null) {
      if (line.startsWith("event: ")) {
        event = line.substring(7);
      } else if (line.startsWith("data: ")) {
        assertThat(event).isEqualTo("leadership");
        return JSON.readTree(line.substring(6));
      }
    }
    throw new AssertionError("the event stream ended");
  }

  private CompletableFuture<HttpResponse<String>> longPoll(
      BatonAgent a, String wait, boolean leader) {
    return http.sendAsync(
        HttpRequest.newBuilder(uri(a, "/v1/leadership?wait=" + wait + "&leader=" + leader)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private record Reply(int status, JsonNode body) {}

  private Reply getJson(BatonAgent a, String path) throws Exception {
    return send(a, HttpRequest.newBuilder(uri(a, path)).GET());
  }

  private Reply post(BatonAgent a, String path) throws Exception {
    return send(a, HttpRequest.newBuilder(uri(a, path)).POST(HttpRequest.BodyPublishers.noBody()));
  }

  private Reply delete(BatonAgent a, String path) throws Exception {
    return send(a, HttpRequest.newBuilder(uri(a, path)).DELETE());
  }

  private Reply send(BatonAgent a, HttpRequest.Builder b) throws Exception {
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), JSON.readTree(r.body()));
  }

  private static URI uri(BatonAgent a, String path) {
    return URI.create("http://127.0.0.1:" + a.httpPort() + path);
  }
}
