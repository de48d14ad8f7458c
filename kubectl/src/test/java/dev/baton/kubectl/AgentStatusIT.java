package dev.baton.kubectl;

import static dev.baton.testkit.Sandbox.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.operator.BatonOperator;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@code kubectl baton status} on a group whose pods ask for the agent, beside the real operator
 * with its webhook on: one pod runs this operator's agent, one the agent an earlier operator
 * injected, one none (created while no webhook answered: no webhook configuration is stored, so the
 * embedded API server calls none). The plugin names the two that need rolling, by the image the
 * operator records in the group's status.
 */
class AgentStatusIT {

  private static final String IMAGE = "ghcr.io/baton-dev/baton-operator:0.2.0";
  private static final String EARLIER = "ghcr.io/baton-dev/baton-operator:0.1.0";

  private Sandbox cluster;

  @BeforeEach
  void start() {
    cluster = new Sandbox(EmbeddedKubernetes.start(), BatonOperator::launch);
    cluster.createPod(labeled("orders-0", IMAGE));
    cluster.createPod(labeled("orders-1", EARLIER));
    cluster.createPod(labeled("orders-2", null));
    cluster
        .env("BATON_WEBHOOK_ENABLED", "true")
        .env("BATON_WEBHOOK_PORT", "0")
        .env("BATON_WEBHOOK_NAMESPACE", "baton-system")
        .env("BATON_AGENT_IMAGE", IMAGE)
        .startOperator();
    cluster.create(Sandbox.group("orders", "orders"));
    await()
        .atMost(Duration.ofSeconds(20))
        .untilAsserted(
            () -> {
              LeaderGroup g = cluster.get("orders");
              assertThat(g.getStatus()).isNotNull();
              assertThat(g.getStatus().getAgentImage()).isEqualTo(IMAGE);
              assertThat(g.getStatus().getLeader()).isIn("orders-0", "orders-1");
            });
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  /** A ready relay-mode pod of orders with the agent of {@code image} (null: none). */
  private static Pod labeled(String name, String image) {
    Map<String, String> labels = new HashMap<>(Map.of("app", "orders"));
    labels.put("baton.dev/agent", "relay");
    PodBuilder pod = new PodBuilder(Sandbox.readyPod(NS, name, labels));
    if (image != null) {
      pod.editSpec()
          .addNewInitContainer()
          .withName("baton-agent")
          .withImage(image)
          .withRestartPolicy("Always")
          .endInitContainer()
          .endSpec();
    }
    return pod.build();
  }

  private String baton(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        KubectlBaton.run(
            args,
            cluster.client,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(exit).as(err.toString(StandardCharsets.UTF_8)).isZero();
    return out.toString(StandardCharsets.UTF_8);
  }

  @Test
  void statusNamesThePodsWithoutTheOperatorsAgent() {
    String text = baton("-n", NS, "status", "orders");

    assertThat(text)
        .contains("AgentInjected=False (AgentMissing)")
        .containsPattern("AgentInjected: 1 of 3 pods .* orders-2")
        .containsPattern("orders-0\\s+\\S+\\s+True\\s+.*relay, current")
        .containsPattern("orders-1\\s+\\S+\\s+True\\s+.*relay, outdated \\(" + EARLIER + "\\)")
        .containsPattern("orders-2\\s+\\S+\\s+True\\s+.*relay, missing")
        .contains(
            "Not running this operator's agent ("
                + IMAGE
                + "): orders-1, orders-2. Roll them (kubectl rollout restart)");
  }

  @Test
  void statusAsJsonCarriesEachPodsAgentState() throws Exception {
    JsonNode group = new ObjectMapper().readTree(baton("-n", NS, "status", "orders", "-o", "json"));

    JsonNode g = group.path("groups").get(0);
    assertThat(g.path("agentImage").asText()).isEqualTo(IMAGE);
    Map<String, String> states = new HashMap<>();
    g.path("pods")
        .forEach(
            p ->
                states.put(
                    p.path("name").asText(),
                    p.path("agent").path("state").asText()
                        + " "
                        + p.path("agent").path("image").asText("-")));
    assertThat(states)
        .containsExactlyInAnyOrderEntriesOf(
            Map.of(
                "orders-0", "current " + IMAGE,
                "orders-1", "outdated " + EARLIER,
                "orders-2", "missing -"));
  }
}
