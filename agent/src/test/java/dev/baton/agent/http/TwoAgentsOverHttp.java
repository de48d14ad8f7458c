package dev.baton.agent.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.agent.BatonAgent;
import dev.baton.agent.testing.AgentSandbox;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * What every test of the agent's HTTP API starts from: the real operator, two pods with an agent
 * each (no group yet, so nobody leads), and requests to the agents through real sockets.
 */
abstract class TwoAgentsOverHttp {

  static final ObjectMapper JSON = new ObjectMapper();
  static final Duration CONFIRM_WITHIN = Duration.ofSeconds(2);

  final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
  AgentSandbox sandbox;
  BatonAgent a0;
  BatonAgent a1;

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

  /**
   * An answer's status and JSON body. A class, not a record: the tests read its fields, which a
   * record keeps private to the class it is declared in.
   */
  static final class Reply {
    final int status;
    final JsonNode body;

    Reply(int status, JsonNode body) {
      this.status = status;
      this.body = body;
    }
  }

  /** The answer, which must be 200 OK; its body says why it is not. */
  static Reply ok(Reply reply) {
    assertThat(reply.status).as(reply.body.toString()).isEqualTo(200);
    return reply;
  }

  /** The answer, which must be 409 Conflict; its body says why it is not. */
  static Reply refused(Reply reply) {
    assertThat(reply.status).as(reply.body.toString()).isEqualTo(409);
    return reply;
  }

  Reply getJson(BatonAgent a, String path) throws Exception {
    return send(a, HttpRequest.newBuilder(uri(a, path)).GET());
  }

  Reply post(BatonAgent a, String path) throws Exception {
    return send(a, HttpRequest.newBuilder(uri(a, path)).POST(HttpRequest.BodyPublishers.noBody()));
  }

  Reply delete(BatonAgent a, String path) throws Exception {
    return send(a, HttpRequest.newBuilder(uri(a, path)).DELETE());
  }

  Reply send(BatonAgent a, HttpRequest.Builder b) throws Exception {
    HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), JSON.readTree(r.body()));
  }

  static URI uri(BatonAgent a, String path) {
    return URI.create("http://127.0.0.1:" + a.httpPort() + path);
  }

  static HttpRequest.Builder jsonPost(BatonAgent a, String path, String json) {
    return HttpRequest.newBuilder(uri(a, path))
        .header("Content-Type", "application/json")
        .POST(HttpRequest.BodyPublishers.ofString(json));
  }
}
