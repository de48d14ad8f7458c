package dev.baton.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * How the agent's HTTP server takes requests: unknown paths and keys, parameters and JSON bodies
 * refused in words that say why, and its answers sent with Nagle's algorithm off.
 */
@Timeout(60)
class HttpRequestsIT extends TwoAgentsOverHttp {

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
        .contains("baton_agent_leader 0.0")
        .contains("baton_agent_lock_requests_total{operation=\"acquire\",status=\"404\"} 1.0")
        .doesNotContain(sandbox.cluster.redis.url());
    // The pod watch's state, one series per state, 1 for the state it is in.
    await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                http.send(
                        HttpRequest.newBuilder(uri(a0, "/metrics")).build(),
                        HttpResponse.BodyHandlers.ofString())
                    .body(),
            body ->
                body.contains("baton_agent_pod_watch_state{state=\"open\"} 1.0")
                    && body.contains("baton_agent_pod_watch_state{state=\"broken\"} 0.0")
                    && body.contains("baton_agent_pod_watch_state{state=\"refused\"} 0.0")
                    && body.contains("baton_agent_pod_watch_open 1.0"));
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

  private static void assertError(Reply r, int status, String error) {
    assertThat(r.status).as(r.body.toString()).isEqualTo(status);
    assertThat(r.body.get("error").asText()).isEqualTo(error);
  }
}
