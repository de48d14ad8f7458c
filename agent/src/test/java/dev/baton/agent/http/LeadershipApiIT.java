package dev.baton.agent.http;

import static dev.baton.agent.testing.AgentSandbox.ROLE;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.baton.agent.BatonAgent;
import dev.baton.agent.testing.AgentSandbox;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The agent's leadership answer over HTTP, against the real operator: the answer, its long poll and
 * its event stream.
 */
@Timeout(60)
class LeadershipApiIT extends TwoAgentsOverHttp {

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
}
