package dev.baton.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.agent.BatonAgent;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.client.LockKeys;
import dev.baton.testkit.Sandbox;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Fenced locks through the agent's HTTP API, against the real operator: taken, renewed, refused,
 * reaped and released (by an agent that restarted too), the validity their answers carry, their
 * long poll and its warning of a hold at risk, and the holds of a pod's owners.
 */
@Timeout(60)
class LockApiIT extends TwoAgentsOverHttp {

  @Test
  void aLockIsTakenRenewedRefusedToAnotherPodReapedWithItsPodAndReleased() throws Exception {
    Reply taken = takeMigration("ttl=30s&wait=2s");
    long token = taken.body.get("token").asLong();
    assertThat(token).isPositive();
    assertThat(taken.body.get("expiresAt").asText()).isNotBlank();
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> "shop/worker-0".equals(lockStatus("migration").getHolder()));

    Reply renewed = post(a0, "/v1/locks/shop/migration/renew");
    assertThat(renewed.status).isEqualTo(200);
    assertThat(renewed.body.get("token").asLong()).isEqualTo(token);

    Reply refusal = refused(post(a1, "/v1/locks/shop/migration?ttl=30s&wait=100ms"));
    assertThat(refusal.body.get("holder").asText()).isEqualTo("shop/worker-0");
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
    awaitMigrationGone();
    Reply afterReap = post(a0, "/v1/locks/migration?ttl=10s");
    assertThat(afterReap.status).isEqualTo(200);
    assertThat(afterReap.body.get("token").asLong())
        .isGreaterThan(second.body.get("token").asLong());
  }

  @Test
  void lockAnswersCarryTheValidityTheLibraryComputedNeverPastSendTimePlusTtl() throws Exception {
    sandbox.createLock("migration");
    Duration ttl = Duration.ofSeconds(10);
    Instant sent = Instant.now();
    Reply taken = ok(post(a0, "/v1/locks/shop/migration?ttl=10s&wait=2s"));
    assertThat(taken.body.get("key").asText()).isEqualTo("shop/migration");
    assertValidity(taken.body, sent, ttl);

    Instant renewSent = Instant.now();
    Reply renewed = ok(post(a0, "/v1/locks/shop/migration/renew"));
    assertThat(renewed.body.get("token").asLong()).isEqualTo(taken.body.get("token").asLong());
    assertValidity(renewed.body, renewSent, ttl);

    // The state answers the same hold, with the validity left since the renewal.
    Reply state = ok(getJson(a0, "/v1/locks/shop/migration"));
    assertThat(state.body.get("held").asBoolean()).isTrue();
    assertThat(state.body.get("token").asLong()).isEqualTo(taken.body.get("token").asLong());
    assertThat(state.body.get("holder").asText()).isEqualTo("shop/worker-0");
    assertValidity(state.body, renewSent, ttl);
  }

  @Test
  void aHoldOutlivesAnAgentRestartAndAHoldThatRanOutIsSaidToBeGone() throws Exception {
    Reply taken = takeMigration("ttl=30s&wait=2s");
    long token = taken.body.get("token").asLong();

    // The same pod's agent restarts: it finds the pod's hold in Redis and renews and releases it.
    sandbox.stopAgent("worker-0");
    BatonAgent restarted = sandbox.startAgent("worker-0", CONFIRM_WITHIN, true);
    Instant sent = Instant.now();
    Reply renewed = ok(post(restarted, "/v1/locks/shop/migration/renew?ttl=20s"));
    assertThat(renewed.body.get("token").asLong()).isEqualTo(token);
    assertValidity(renewed.body, sent, Duration.ofSeconds(20));
    Reply released = ok(delete(restarted, "/v1/locks/shop/migration"));
    assertThat(released.body.get("released").asBoolean()).isTrue();
    assertThat(sandbox.cluster.redis.command("EXISTS", "baton:{shop/migration}:lock"))
        .isEqualTo(":0");

    // A hold whose ttl ran out while the agent was away is gone, and the answer says so.
    assertThat(post(restarted, "/v1/locks/shop/migration?ttl=1s").status).isEqualTo(200);
    sandbox.stopAgent("worker-0");
    awaitMigrationGone();
    BatonAgent again = sandbox.startAgent("worker-0", CONFIRM_WITHIN, true);
    // A restarted agent cannot tell a hold that ran out from none: it says what it knows.
    String gone = "lock shop/migration is not held by pod shop/worker-0: the lock is free";
    Reply lateRenew = refused(post(again, "/v1/locks/shop/migration/renew"));
    assertThat(lateRenew.body.get("error").asText()).isEqualTo(gone);
    assertThat(lateRenew.body.get("holder").isNull()).isTrue();
    Reply lateRelease = refused(delete(again, "/v1/locks/shop/migration"));
    assertThat(lateRelease.body.get("error").asText()).isEqualTo(gone);
    assertThat(lateRelease.body.get("released").asBoolean()).isFalse();

    // Taken by another pod since: the answer names it.
    assertThat(post(a1, "/v1/locks/shop/migration?ttl=30s").status).isEqualTo(200);
    Reply taken1 = refused(post(again, "/v1/locks/shop/migration/renew"));
    assertThat(taken1.body.get("error").asText())
        .isEqualTo(
            "lock shop/migration is not held by pod shop/worker-0: shop/worker-1 holds it now");
    assertThat(taken1.body.get("holder").asText()).isEqualTo("shop/worker-1");
  }

  @Test
  void aLongPollOnALockAnswersWhenTheHoldIsLostAndHeldWhenTheWaitRunsOut() throws Exception {
    Reply taken = takeMigration("ttl=30s&wait=2s");

    // Nothing happens to the hold: the poll answers at its limit, still held.
    Reply atLimit = ok(getJson(a0, "/v1/locks/shop/migration?wait=300ms"));
    assertThat(atLimit.body.get("held").asBoolean()).isTrue();
    assertThat(atLimit.body.get("token").asLong()).isEqualTo(taken.body.get("token").asLong());
    assertThat(atLimit.body.get("validForMillis").asLong()).isPositive();
    // Another pod's agent sees it held by worker-0, not by its own pod.
    Reply other = ok(getJson(a1, "/v1/locks/migration"));
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
    Reply shortHold = ok(post(a0, "/v1/locks/shop/migration?ttl=2s"));
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
      Reply taken = ok(post(a0, "/v1/locks/shop/migration?ttl=1s&wait=2s"));
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
    Reply taken = takeMigration("ttl=30s&owner=job-1");

    Reply again = refused(post(a0, "/v1/locks/shop/migration?ttl=30s&owner=job-1"));
    assertThat(again.body.get("yours").asBoolean()).isTrue();
    assertThat(again.body.get("error").asText())
        .isEqualTo(
            "owner 'job-1' of this pod holds lock shop/migration already: renew it (POST"
                + " /v1/locks/shop/migration/renew), or release it first");

    Reply byPod = refused(post(a0, "/v1/locks/shop/migration/renew"));
    assertThat(byPod.body.get("error").asText())
        .isEqualTo(
            "lock shop/migration is not held by pod shop/worker-0: shop/worker-0 (owner 'job-1')"
                + " holds it now");
    Reply byOther = refused(delete(a0, "/v1/locks/shop/migration?owner=job-2"));
    assertThat(byOther.body.get("released").asBoolean()).isFalse();
    Reply other = refused(post(a0, "/v1/locks/shop/migration?ttl=30s&owner=job-2&wait=100ms"));
    assertThat(other.body.get("yours").asBoolean()).isFalse();
    assertThat(other.body.get("error").asText())
        .isEqualTo("lock shop/migration is held by shop/worker-0 (owner 'job-1')");

    Reply renewed = ok(post(a0, "/v1/locks/shop/migration/renew?owner=job-1"));
    assertThat(renewed.body.get("token").asLong()).isEqualTo(taken.body.get("token").asLong());
    ok(delete(a0, "/v1/locks/shop/migration?owner=job-1"));

    // Its own hold ran out and another pod took the lock, as this agent knows: said so, apart
    // from "never held" (a hold that ran out and nobody took is taken back by a renewal).
    assertThat(post(a0, "/v1/locks/shop/migration?ttl=1s&owner=job-1").status).isEqualTo(200);
    ok(post(a1, "/v1/locks/shop/migration?ttl=30s&wait=5s"));
    Reply late = refused(post(a0, "/v1/locks/shop/migration/renew?owner=job-1"));
    assertThat(late.body.get("error").asText())
        .isEqualTo(
            "the hold of owner 'job-1' of this pod on lock shop/migration ran out (its ttl"
                + " passed, or it was released or force-released): shop/worker-1 holds it now");
  }

  @Test
  void aBareNameIsTheLockOfThePodsNamespaceNeverAKeyOfThatNameElsewhere() throws Exception {
    sandbox.createLock("orders-report");
    // A key 'orders-report' with a valid token reservation, as a RedisLock of any namespace with
    // spec.key: orders-report had it made before keys were bound to namespaces.
    LockKeys shop = new LockKeys("shop/orders-report");
    LockKeys bare = new LockKeys("orders-report");
    redis("SET", bare.reservation(), value(redis("GET", shop.reservation())));
    redis("SET", bare.reservedReplid(), value(redis("GET", shop.reservedReplid())));

    Reply taken = ok(post(a0, "/v1/locks/orders-report?ttl=30s"));
    assertThat(taken.body.get("key").asText()).isEqualTo("shop/orders-report");
    assertThat(redis("EXISTS", shop.lock())).isEqualTo(":1");
    assertThat(redis("EXISTS", bare.lock())).isEqualTo(":0");
    assertThat(delete(a0, "/v1/locks/orders-report").status).isEqualTo(200);
    assertThat(redis("EXISTS", shop.lock())).isEqualTo(":0");
  }

  /** A RedisLock migration, taken through worker-0's agent with these parameters. */
  private Reply takeMigration(String query) throws Exception {
    sandbox.createLock("migration");
    return ok(post(a0, "/v1/locks/shop/migration?" + query));
  }

  /** Waits until Redis has no hold on the migration lock left: reaped, or run out. */
  private void awaitMigrationGone() {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> redis("EXISTS", "baton:{shop/migration}:lock").equals(":0"));
  }

  private String redis(String... command) {
    return sandbox.cluster.redis.command(command);
  }

  /** A bulk reply's value: its last line. */
  private static String value(String reply) {
    String[] lines = reply.split("\r\n");
    return lines[lines.length - 1];
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
}
