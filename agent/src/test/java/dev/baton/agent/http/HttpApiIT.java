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
    assertThat(post(a0, "/v1/locks/shop/x?ttl=2h").status).isEqualTo(400);
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
    // A restarted agent cannot tell a hold that ran out from none: it says what it knows.
    String gone = "lock shop/migration is not held by pod shop/worker-0: the lock is free";
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
            "lock shop/migration is not held by pod shop/worker-0: shop/worker-1 holds it now");
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

    // The ttl runs out: the poll answers "at risk" while the hold is still valid, then not held.
    Reply shortHold = post(a0, "/v1/locks/shop/migration?ttl=2s");
    assertThat(shortHold.status).as(shortHold.body.toString()).isEqualTo(200);
    assertThat(shortHold.body.get("atRisk").asBoolean()).isFalse();
    HttpResponse<String> risk = lockPoll(a0, "shop/migration", "30s").get(20, TimeUnit.SECONDS);
    JsonNode riskBody = JSON.readTree(risk.body());
    assertThat(riskBody.get("held").asBoolean()).as(risk.body()).isTrue();
    assertThat(riskBody.get("atRisk").asBoolean()).as(risk.body()).isTrue();
    assertThat(riskBody.get("validForMillis").asLong())
        .as("told with time left to stop: %s", risk.body())
        .isPositive()
        .isLessThanOrEqualTo(500);
    HttpResponse<String> ranOut =
        http.sendAsync(
                HttpRequest.newBuilder(uri(a0, "/v1/locks/shop/migration?wait=30s&atRisk=true"))
                    .build(),
                HttpResponse.BodyHandlers.ofString())
            .get(20, TimeUnit.SECONDS);
    assertThat(ranOut.statusCode()).as(ranOut.body()).isEqualTo(200);
    assertThat(JSON.readTree(ranOut.body()).get("held").asBoolean()).isFalse();
  }

  /**
   * A lock at risk is told before its validity ends, every time: a 1 s hold (the shortest), polled
   * as an application would, five times over.
   */
  @Test
  void aShortHoldIsToldAtRiskBeforeItsValidityEnds() throws Exception {
    sandbox.createLock("migration");
    for (int i = 0; i < 5; i++) {
      // The key outlives the validity by the drift allowance: the next take waits for it.
      Reply taken = post(a0, "/v1/locks/shop/migration?ttl=1s&wait=2s");
      assertThat(taken.status).as(taken.body.toString()).isEqualTo(200);
      long validUntil = System.nanoTime() + taken.body.get("validForMillis").asLong() * 1_000_000;
      Reply risk = getJson(a0, "/v1/locks/shop/migration?wait=5s");
      long told = System.nanoTime();
      assertThat(risk.body.get("atRisk").asBoolean()).as(risk.body.toString()).isTrue();
      assertThat(risk.body.get("held").asBoolean()).as(risk.body.toString()).isTrue();
      assertThat(told).as("told before the validity ended").isLessThan(validUntil);
      Reply lost = getJson(a0, "/v1/locks/shop/migration?wait=5s&atRisk=true");
      assertThat(lost.body.get("held").asBoolean()).as(lost.body.toString()).isFalse();
      assertThat(System.nanoTime()).isGreaterThanOrEqualTo(validUntil - 200_000_000L);
    }
  }

  @Test
  void eachOwnerOfAPodRenewsAndReleasesOnlyItsOwnHold() throws Exception {
    sandbox.createLock("migration");
    Reply taken = post(a0, "/v1/locks/shop/migration?ttl=30s&owner=job-1");
    assertThat(taken.status).as(taken.body.toString()).isEqualTo(200);

    Reply again = post(a0, "/v1/locks/shop/migration?ttl=30s&owner=job-1");
    assertThat(again.status).isEqualTo(409);
    assertThat(again.body.get("yours").asBoolean()).isTrue();
    assertThat(again.body.get("error").asText())
        .isEqualTo(
            "owner 'job-1' of this pod holds lock shop/migration already: renew it (POST"
                + " /v1/locks/shop/migration/renew), or release it first");

    Reply byPod = post(a0, "/v1/locks/shop/migration/renew");
    assertThat(byPod.status).isEqualTo(409);
    assertThat(byPod.body.get("error").asText())
        .isEqualTo(
            "lock shop/migration is not held by pod shop/worker-0: shop/worker-0 (owner 'job-1')"
                + " holds it now");
    Reply byOther = delete(a0, "/v1/locks/shop/migration?owner=job-2");
    assertThat(byOther.status).isEqualTo(409);
    assertThat(byOther.body.get("released").asBoolean()).isFalse();
    Reply other = post(a0, "/v1/locks/shop/migration?ttl=30s&owner=job-2&wait=100ms");
    assertThat(other.status).isEqualTo(409);
    assertThat(other.body.get("yours").asBoolean()).isFalse();
    assertThat(other.body.get("error").asText())
        .isEqualTo("lock shop/migration is held by shop/worker-0 (owner 'job-1')");

    Reply renewed = post(a0, "/v1/locks/shop/migration/renew?owner=job-1");
    assertThat(renewed.status).as(renewed.body.toString()).isEqualTo(200);
    assertThat(renewed.body.get("token").asLong()).isEqualTo(taken.body.get("token").asLong());
    Reply released = delete(a0, "/v1/locks/shop/migration?owner=job-1");
    assertThat(released.status).as(released.body.toString()).isEqualTo(200);

    // Its own hold ran out and another pod took the lock, as this agent knows: said so, apart
    // from "never held" (a hold that ran out and nobody took is taken back by a renewal).
    assertThat(post(a0, "/v1/locks/shop/migration?ttl=1s&owner=job-1").status).isEqualTo(200);
    Reply next = post(a1, "/v1/locks/shop/migration?ttl=30s&wait=5s");
    assertThat(next.status).as(next.body.toString()).isEqualTo(200);
    Reply late = post(a0, "/v1/locks/shop/migration/renew?owner=job-1");
    assertThat(late.status).isEqualTo(409);
    assertThat(late.body.get("error").asText())
        .isEqualTo(
            "the hold of owner 'job-1' of this pod on lock shop/migration ran out (its ttl"
                + " passed, or it was released or force-released): shop/worker-1 holds it now");
  }

  @Test
  void inputsAreTakenFromAJsonBodyAndRefusedInWordsThatSayWhy() throws Exception {
    sandbox.createLock("migration");
    Reply body =
        send(a0, jsonPost(a0, "/v1/locks/shop/migration", "{\"ttl\":\"5s\",\"owner\":\"job-1\"}"));
    assertThat(body.status).as(body.body.toString()).isEqualTo(200);
    assertThat(body.body.get("validForMillis").asLong()).isLessThanOrEqualTo(5000);
    assertThat(delete(a0, "/v1/locks/shop/migration?owner=job-1").status).isEqualTo(200);

    Reply dapr =
        send(
            a0,
            jsonPost(
                a0, "/v1/locks/shop/migration", "{\"lockOwner\":\"job-1\",\"expiryInSeconds\":5}"));
    assertThat(dapr.status).isEqualTo(400);
    assertThat(dapr.body.get("error").asText())
        .isEqualTo("unknown field 'lockOwner' (known: ttl, wait, owner)");

    assertError(
        post(a0, "/v1/locks/shop/migration?ttl=2h"),
        400,
        "parameter 'ttl' must be between 1s and 1h, as a RedisLock's ttl, not 2h");
    assertError(
        post(a0, "/v1/locks/shop/migration?ttl=10ms"),
        400,
        "parameter 'ttl' must be between 1s and 1h, as a RedisLock's ttl, not 10ms");
    assertError(
        post(a0, "/v1/locks/shop/migration?ttl=-5s"),
        400,
        "parameter 'ttl' must be positive, not -5s");
    assertError(
        post(a0, "/v1/locks/shop/migration?owner=a:b"),
        400,
        "'owner' must be 1 to 128 letters, digits, '.', '_' or '-', not 'a:b'");

    // A key no RedisLock has answers at once, whatever the wait.
    HttpResponse<String> unknown =
        http.send(
            HttpRequest.newBuilder(uri(a0, "/v1/locks/shop/no-such-lock?wait=10m"))
                .POST(HttpRequest.BodyPublishers.noBody())
                .timeout(Duration.ofSeconds(5))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(unknown.statusCode()).isEqualTo(404);
  }

  @Test
  void daprsLockApiAndLeaderElectorsAnswerAreServed() throws Exception {
    sandbox.createLock("migration");
    String lock = "/v1.0-alpha1/lock/lockstore";
    String unlock = "/v1.0-alpha1/unlock/lockstore";
    Reply won =
        send(
            a0,
            jsonPost(
                a0,
                lock,
                "{\"resourceId\":\"migration\",\"lockOwner\":\"vader\",\"expiryInSeconds\":60}"));
    assertThat(won.status).as(won.body.toString()).isEqualTo(200);
    assertThat(won.body.get("success").asBoolean()).isTrue();
    assertThat(won.body.get("token").asLong()).isPositive();
    Reply lost =
        send(
            a1,
            jsonPost(
                a1,
                lock,
                "{\"resourceId\":\"shop/migration\",\"lockOwner\":\"luke\",\"expiryInSeconds\":60}"));
    assertThat(lost.status).isEqualTo(200);
    assertThat(lost.body.get("success").asBoolean()).isFalse();

    Reply others =
        send(a1, jsonPost(a1, unlock, "{\"resourceId\":\"migration\",\"lockOwner\":\"luke\"}"));
    assertThat(others.body.get("status").asInt()).as(others.body.toString()).isEqualTo(2);
    Reply unlocked =
        send(a0, jsonPost(a0, unlock, "{\"resourceId\":\"migration\",\"lockOwner\":\"vader\"}"));
    assertThat(unlocked.body.get("status").asInt()).as(unlocked.body.toString()).isEqualTo(0);
    Reply none =
        send(a0, jsonPost(a0, unlock, "{\"resourceId\":\"migration\",\"lockOwner\":\"vader\"}"));
    assertThat(none.body.get("status").asInt()).as(none.body.toString()).isEqualTo(1);

    Reply malformed =
        send(
            a0,
            jsonPost(
                a0, lock, "{\"resourceId\":\"migration\",\"lockOwner\":\"vader\",\"expiry\":5}"));
    assertThat(malformed.status).isEqualTo(400);
    assertThat(malformed.body.get("errorCode").asText()).isEqualTo("ERR_MALFORMED_REQUEST");
    assertThat(malformed.body.get("message").asText())
        .isEqualTo("unknown field 'expiry' (known: resourceId, lockOwner, expiryInSeconds)");
    Reply missing =
        send(a0, jsonPost(a0, lock, "{\"resourceId\":\"migration\",\"lockOwner\":\"vader\"}"));
    assertThat(missing.status).isEqualTo(400);
    assertThat(missing.body.get("message").asText())
        .isEqualTo("field 'expiryInSeconds' is required");

    // leader-elector's answer on GET /: the leader's name once a gate is open, on every agent.
    assertThat(getJson(a0, "/").body.get("name").asText()).isEmpty();
    sandbox.group();
    String leader = sandbox.awaitLeader();
    await()
        .atMost(Duration.ofSeconds(15))
        .until(
            () ->
                leader.equals(getJson(a0, "/").body.get("name").asText())
                    && leader.equals(getJson(a1, "/").body.get("name").asText()));
  }

  private static void assertError(Reply r, int status, String error) {
    assertThat(r.status).as(r.body.toString()).isEqualTo(status);
    assertThat(r.body.get("error").asText()).isEqualTo(error);
  }

  private static HttpRequest.Builder jsonPost(BatonAgent a, String path, String json) {
    return HttpRequest.newBuilder(uri(a, path))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json));
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
