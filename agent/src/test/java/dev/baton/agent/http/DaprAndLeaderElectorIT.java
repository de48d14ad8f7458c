package dev.baton.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The agent answering in other tools' words, against the real operator: Dapr's lock API, and
 * leader-elector's answer on {@code GET /}.
 */
@Timeout(60)
class DaprAndLeaderElectorIT extends TwoAgentsOverHttp {

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
}
