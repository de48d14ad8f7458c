package dev.baton.agent.gate;

import static dev.baton.agent.gate.GateIT.assertCut;
import static dev.baton.agent.gate.GateIT.assertEchoes;
import static dev.baton.agent.testing.AgentSandbox.ROLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.agent.testing.AgentSandbox;
import dev.baton.agent.testing.HoldKeys;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.client.BatonNames;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A leader pod turned not ready: with no failover delay its agent cuts at once, without the
 * operator's demotion (the operator is stopped first, so nothing else could have cut); with a
 * delay, or while the group is paused, the connection stays open through the not-ready spell. The
 * operator keeps the leader's {@code baton.dev/failover-delay} true as the spec changes.
 */
class NotReadyCutIT {

  private static final Duration CONFIRM_WITHIN = Duration.ofSeconds(3);
  private final HttpClient http = HttpClient.newHttpClient();
  private AgentSandbox sandbox;

  @AfterEach
  void stop() {
    if (sandbox != null) {
      sandbox.close();
    }
  }

  private String startWithFailoverDelay(String delay) {
    sandbox = new AgentSandbox().pods(2).startOperator();
    for (var p : sandbox.cluster.pods()) {
      sandbox.startAgent(p.getMetadata().getName(), CONFIRM_WITHIN, true);
    }
    LeaderGroup g = Sandbox.group(AgentSandbox.GROUP, AgentSandbox.APP);
    g.getSpec().setFailoverDelay(delay);
    sandbox.cluster.create(g);
    return sandbox.awaitLeadingAgent();
  }

  @Test
  void withNoFailoverDelayANotReadyLeadersGateIsCutWithoutTheOperator() throws Exception {
    String leader = startWithFailoverDelay("0s");
    assertThat(annotation(leader)).isEqualTo("0s");
    sandbox.cluster.stopOperator(); // nobody is left to demote it

    try (Socket held = sandbox.connectThroughGate(leader)) {
      assertEchoes(held, "before");
      sandbox.cluster.setReady(leader, false);
      assertCut(held);
    }
    assertThat(sandbox.cluster.leaders(ROLE)).as("still labeled leader").containsExactly(leader);
    assertThat(sandbox.agent(leader).leadership().view().leader()).isFalse();
    await()
        .atMost(Duration.ofSeconds(2))
        .untilAsserted(
            () ->
                assertThat(HoldKeys.state(sandbox.cluster.redis))
                    .as("the gate key let go: released")
                    .isEqualTo('R'));
    try (Socket s = sandbox.connectThroughGate(leader)) {
      assertCut(s);
    }

    // Ready again, still labeled leader with its term: the gate opens again.
    sandbox.cluster.setReady(leader, true);
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> sandbox.agent(leader).leadership().view().leader());
    try (Socket s = sandbox.connectThroughGate(leader)) {
      assertEchoes(s, "after");
    }
  }

  @Test
  void withAFailoverDelayTheConnectionOutlivesANotReadySpell() throws Exception {
    String leader = startWithFailoverDelay("10s");
    assertThat(annotation(leader)).isEqualTo("10s");
    try (Socket held = sandbox.connectThroughGate(leader)) {
      assertEchoes(held, "before");
      sandbox.cluster.setReady(leader, false);
      awaitMetric(leader, "baton_agent_pod_ready 0.0"); // the agent saw it
      await()
          .during(Duration.ofSeconds(1))
          .atMost(Duration.ofSeconds(2))
          .until(() -> sandbox.agent(leader).leadership().view().leader());
      assertEchoes(held, "while not ready");
      assertThat(sandbox.cluster.leaders(ROLE)).containsExactly(leader);

      sandbox.cluster.setReady(leader, true);
      awaitMetric(leader, "baton_agent_pod_ready 1.0");
      assertEchoes(held, "ready again");
    }
    assertThat(sandbox.recorder.spans()).hasSize(1);
    assertThat(sandbox.recorder.spans().get(0).closedAt())
        .as("never closed")
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void theOperatorRewritesTheAnnotationAsTheSpecChangesAndPausedKeepsTheGateOpen()
      throws Exception {
    String leader = startWithFailoverDelay("0s");
    String follower =
        sandbox.cluster.roles(ROLE).keySet().stream()
            .filter(p -> !p.equals(leader))
            .findFirst()
            .orElseThrow();
    assertThat(annotation(follower)).isNull();
    String term = sandbox.pod(leader).getMetadata().getAnnotations().get("baton.dev/term");

    patchSpec(Map.of("failoverDelay", "2s"));
    awaitAnnotation(leader, "2s");
    patchSpec(Map.of("paused", true));
    awaitAnnotation(leader, "paused");

    try (Socket held = sandbox.connectThroughGate(leader)) {
      assertEchoes(held, "paused");
      sandbox.cluster.setReady(leader, false);
      awaitMetric(leader, "baton_agent_pod_ready 0.0");
      await()
          .during(Duration.ofSeconds(3)) // past the 2 s delay: paused keeps even this leader
          .atMost(Duration.ofSeconds(4))
          .until(() -> sandbox.agent(leader).leadership().view().leader());
      assertEchoes(held, "paused and not ready");
    }
    assertThat(sandbox.cluster.leaders(ROLE)).containsExactly(leader);
    assertThat(sandbox.pod(leader).getMetadata().getAnnotations().get("baton.dev/term"))
        .isEqualTo(term);

    sandbox.cluster.setReady(leader, true);
    patchSpec(Map.of("paused", false));
    awaitAnnotation(leader, "2s");
    assertThat(annotation(follower)).isNull();
  }

  private String annotation(String pod) {
    var a = sandbox.pod(pod).getMetadata().getAnnotations();
    return a == null ? null : a.get(BatonNames.FAILOVER_DELAY_ANNOTATION);
  }

  private void awaitAnnotation(String pod, String value) {
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(annotation(pod)).isEqualTo(value));
  }

  /** As kubectl patch --type merge: whatever the group's version, so no conflict with status. */
  private void patchSpec(Map<String, Object> spec) {
    sandbox
        .cluster
        .client
        .resources(LeaderGroup.class)
        .inNamespace(Sandbox.NS)
        .withName(AgentSandbox.GROUP)
        .patch(PatchContext.of(PatchType.JSON_MERGE), Serialization.asJson(Map.of("spec", spec)));
  }

  private void awaitMetric(String pod, String line) {
    URI uri = URI.create("http://127.0.0.1:" + sandbox.agent(pod).httpPort() + "/metrics");
    await()
        .atMost(Duration.ofSeconds(5))
        .pollInterval(Duration.ofMillis(20))
        .untilAsserted(
            () ->
                assertThat(
                        http.send(
                                HttpRequest.newBuilder(uri).build(),
                                HttpResponse.BodyHandlers.ofString())
                            .body())
                    .contains(line));
  }
}
