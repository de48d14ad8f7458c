package dev.baton.operator.leadergroup;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.client.ElectionKeys;
import dev.baton.client.HolderRecord;
import dev.baton.operator.testing.ClusterTest;
import dev.baton.testkit.EndpointsController;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Redis, the labels and the leader Service are compared, and a disagreement raised (docs/design.md,
 * "Three views agree").
 */
class SplitBrainIT extends ClusterTest {

  private EndpointsController endpoints;

  @BeforeEach
  void start() {
    endpoints = new EndpointsController(cluster.client, NS);
    for (int i = 0; i < 3; i++) {
      cluster.createPod("payments-" + i, "payments");
    }
    cluster
        .client
        .services()
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName("payments-leader")
                .withNamespace(NS)
                .endMetadata()
                .withNewSpec()
                .withSelector(Map.of(ROLE, "leader"))
                .addNewPort()
                .withPort(80)
                .endPort()
                .endSpec()
                .build())
        .create();
    cluster.startOperator();
    cluster.create(Sandbox.group("payments", "payments"));
    cluster.awaitLeader("payments", ROLE);
  }

  @AfterEach
  void stop() {
    endpoints.close();
  }

  private String splitBrain() {
    return cluster
        .condition("payments", "SplitBrainSuspected")
        .map(c -> c.getStatus())
        .orElse("missing");
  }

  private String metrics() throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + cluster.operator().httpPort() + "/metrics"))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  @Test
  void aForeignPodBehindTheLeaderServiceRaisesSplitBrainUntilItIsGone() throws Exception {
    await().atMost(WAIT).until(() -> splitBrain().equals("False"));
    // Someone labels a pod outside the group as leader: the Service now routes to two pods.
    cluster
        .client
        .pods()
        .resource(Sandbox.readyPod(NS, "intruder", Map.of("app", "canary", ROLE, "leader")))
        .create();

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(splitBrain()).isEqualTo("True");
              assertThat(cluster.condition("payments", "SplitBrainSuspected").get().getMessage())
                  .contains("intruder");
              assertThat(metrics())
                  .contains(
                      "baton_leadergroup_condition{group=\"payments\",namespace=\"shop\","
                          + "type=\"SplitBrainSuspected\"} 1.0");
            });
    assertThat(cluster.eventReasons("payments")).contains("SplitBrainSuspected");

    cluster.deletePod("intruder");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(splitBrain()).isEqualTo("False");
              assertThat(metrics())
                  .contains(
                      "baton_leadergroup_condition{group=\"payments\",namespace=\"shop\","
                          + "type=\"SplitBrainSuspected\"} 0.0");
            });
  }

  @Test
  void staleEndpointsRaiseSplitBrainAndClearWhenTheyCatchUp() {
    await().atMost(WAIT).until(() -> splitBrain().equals("False"));
    endpoints.pause(true);
    String old = cluster.leaders(ROLE).get(0);
    cluster.deletePod(old);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(splitBrain()).isEqualTo("True");
              assertThat(cluster.condition("payments", "SplitBrainSuspected").get().getMessage())
                  .contains("leader Service endpoints [" + old + "]");
            });
    endpoints.pause(false);
    await().atMost(WAIT).until(() -> splitBrain().equals("False"));
  }

  @Test
  void aLabelEditedByHandIsRepairedAtOnce() {
    String leader = cluster.leaders(ROLE).get(0);
    String follower =
        cluster.roles(ROLE).keySet().stream()
            .filter(p -> !p.equals(leader))
            .findFirst()
            .orElseThrow();
    cluster
        .client
        .pods()
        .inNamespace(NS)
        .withName(follower)
        .edit(
            p -> {
              p.getMetadata().getLabels().put(ROLE, "leader");
              return p;
            });
    await()
        .atMost(Duration.ofSeconds(5))
        .untilAsserted(() -> assertThat(cluster.leaders(ROLE)).containsExactly(leader));
    await().atMost(WAIT).until(() -> splitBrain().equals("False"));
  }

  @Test
  void aRedisHolderChangedBehindTheOperatorsBackIsFollowedByTheLabels() {
    String leader = cluster.leaders(ROLE).get(0);
    String other =
        cluster.roles(ROLE).keySet().stream()
            .filter(p -> !p.equals(leader))
            .findFirst()
            .orElseThrow();
    String uid = cluster.pod(other).getMetadata().getUid();
    ElectionKeys keys = new ElectionKeys(NS + "/payments");
    long term = cluster.status("payments").getTerm() + 5;
    cluster.redis.command("SET", keys.term(), Long.toString(term));
    cluster.redis.command(
        "SET",
        keys.holder(),
        new HolderRecord("default", NS, other, uid, term).encode(),
        "PX",
        "30000");

    // Label follows lease: Redis is the truth, and the labels move to the pod it names.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(cluster.leaders(ROLE)).containsExactly(other);
              assertThat(cluster.status("payments").getTerm()).isEqualTo(term);
            });
    await().atMost(WAIT).until(() -> splitBrain().equals("False"));
  }
}
