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
    cluster.createPods("payments", 3);
    cluster.createLeaderService("payments-leader", Map.of(ROLE, "leader"));
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

  /** SplitBrainSuspected is True, and its message names {@code what}. */
  private void assertSplitBrain(String what) {
    assertThat(splitBrain()).isEqualTo("True");
    assertThat(cluster.condition("payments", "SplitBrainSuspected").get().getMessage())
        .contains(what);
  }

  /** A pod of the group other than {@code leader}. */
  private String aFollower(String leader) {
    return cluster.roles(ROLE).keySet().stream()
        .filter(p -> !p.equals(leader))
        .findFirst()
        .orElseThrow();
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
              assertSplitBrain("intruder");
              assertThat(cluster.metrics())
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
              assertThat(cluster.metrics())
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
        .untilAsserted(() -> assertSplitBrain("leader Service endpoints [" + old + "]"));
    endpoints.pause(false);
    await().atMost(WAIT).until(() -> splitBrain().equals("False"));
  }

  @Test
  void aLabelEditedByHandIsRepairedAtOnce() {
    String leader = cluster.leaders(ROLE).get(0);
    String follower = aFollower(leader);
    cluster.editPod(
        follower,
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
    String other = aFollower(leader);
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
