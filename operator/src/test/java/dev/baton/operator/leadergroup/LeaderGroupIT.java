package dev.baton.operator.leadergroup;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.client.BatonNames;
import dev.baton.client.ElectionKeys;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.ClusterTest;
import dev.baton.testkit.RoleWatcher;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The LeaderGroup's election of docs/design.md, against real Redis and the mock API server: one
 * leader among ready pods, replaced when it is deleted, not ready, terminating or leaves the group,
 * none without a ready candidate, and switchover. What restarts of Redis and of the operator keep
 * is {@link RestartsIT}; misconfigured groups are {@link MisconfiguredGroupIT}.
 */
class LeaderGroupIT extends ClusterTest {

  /** Failover times seen by the label watcher, printed for the closing note. */
  static final List<Long> failoverMillis = new ArrayList<>();

  @Test
  void electsExactlyOneLeaderAmongThreeReadyPods() {
    String leader = cluster.startGroup("payments", 3);

    assertThat(cluster.roles(ROLE)).containsOnlyKeys("payments-0", "payments-1", "payments-2");
    assertThat(cluster.roles(ROLE).values())
        .containsExactlyInAnyOrder("leader", "follower", "follower");
    LeaderGroup g = cluster.get("payments");
    assertThat(g.getStatus().getTerm()).isEqualTo(1L);
    assertThat(g.getStatus().getCandidates()).isEqualTo(3);
    assertThat(g.getStatus().getLeaderUID()).isEqualTo(cluster.pod(leader).getMetadata().getUid());
    assertThat(g.getStatus().getObservedGeneration()).isEqualTo(g.getMetadata().getGeneration());
    cluster.assertCondition("payments", "Ready").hasStatus("True").hasReason("LeaderElected");
    Pod leaderPod = cluster.pod(leader);
    assertThat(leaderPod.getMetadata().getAnnotations())
        .containsEntry("baton.dev/term", "1")
        .containsEntry("baton.dev/leader-group", "payments")
        .containsEntry("controller.kubernetes.io/pod-deletion-cost", "1000000")
        .containsKey("baton.dev/leader-since");
    for (Pod p : cluster.pods()) {
      if (!p.getMetadata().getName().equals(leader)) {
        assertThat(p.getMetadata().getAnnotations())
            .containsEntry("baton.dev/leader-group", "payments")
            .doesNotContainKeys("baton.dev/term", "controller.kubernetes.io/pod-deletion-cost");
      }
    }
    // The oldest pod wins when nothing else decides.
    assertThat(leader).isEqualTo("payments-0");
    await()
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(cluster.eventReasons("payments")).contains("Initial"));
    assertThat(cluster.redis.command("GET", new ElectionKeys(NS + "/payments").holder()))
        .contains("default|shop|payments-0|");
  }

  /**
   * Three ready pods and the operator, then a watcher of the role labels, then the group: the
   * watcher sees every label the group's pods are ever given.
   */
  private RoleWatcher watchedGroup() {
    cluster.createPods("payments", 3);
    cluster.startOperator();
    RoleWatcher watcher = new RoleWatcher(cluster.client, NS, ROLE);
    try {
      cluster.create(BatonCluster.group("payments", "payments"));
    } catch (RuntimeException e) {
      watcher.close();
      throw e;
    }
    return watcher;
  }

  @Test
  void deletedLeaderIsReplacedAtOnceWithAHigherTermAndNeverTwoLeaders() {
    try (RoleWatcher watcher = watchedGroup()) {
      cluster.awaitLeader("payments", ROLE);
      long firstTerm = cluster.term("payments");
      for (int round = 0; round < 2; round++) {
        String before = cluster.awaitLeader("payments", ROLE);
        int changes = watcher.leaderChanges();
        long deletedAt = System.nanoTime();
        cluster.client.pods().inNamespace(NS).withName(before).delete();
        await()
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(5))
            .until(() -> watcher.leaderChanges() > changes);
        failoverMillis.add((watcher.lastLeaderChangeNanos() - deletedAt) / 1_000_000);
        String after = cluster.awaitLeader("payments", ROLE);
        assertThat(after).isNotEqualTo(before);
        cluster.createPod(before, "payments");
      }
      assertThat(cluster.term("payments")).isGreaterThan(firstTerm);
      assertThat(watcher.violations()).as(String.join("\n", watcher.history())).isEmpty();
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> assertThat(cluster.eventReasons("payments")).contains("LeaderDeleted"));
      System.out.println(
          "failover after leader deletion (ms, watcher-observed): " + failoverMillis);
    }
  }

  @Test
  void notReadyLeaderIsReplacedAndStaysFollowerWhenReadyAgain() {
    try (RoleWatcher watcher = watchedGroup()) {
      String first = cluster.awaitLeader("payments", ROLE);
      long firstTerm = cluster.term("payments");

      cluster.setReady(first, false);

      await()
          .atMost(WAIT)
          .untilAsserted(() -> assertThat(cluster.leaders(ROLE)).hasSize(1).doesNotContain(first));
      String second = cluster.awaitLeader("payments", ROLE);
      assertThat(cluster.term("payments")).isGreaterThan(firstTerm);
      assertThat(cluster.roles(ROLE)).containsEntry(first, "follower");
      long secondTerm = cluster.term("payments");

      cluster.setReady(first, true);
      cluster.awaitCandidates("payments", 3);
      // Sticky: the new leader keeps leading through renewals.
      cluster.awaitLeaderKept("payments", second, secondTerm, Duration.ofSeconds(2));
      assertThat(watcher.violations()).as(String.join("\n", watcher.history())).isEmpty();
      assertThat(cluster.eventReasons("payments")).contains("LeaderNotReady");
    }
  }

  @Test
  void terminatingLeaderHandsOverBeforeItIsGone() {
    for (int i = 0; i < 3; i++) {
      Pod p = Sandbox.readyPod(NS, "payments-" + i, Map.of("app", "payments"));
      // A finalizer keeps the pod in Terminating, as a graceful shutdown would.
      p.getMetadata().setFinalizers(List.of("example.com/drain"));
      cluster.client.pods().resource(p).create();
    }
    cluster.startOperator();
    cluster.create(BatonCluster.group("payments", "payments"));
    String first = cluster.awaitLeader("payments", ROLE);

    cluster.client.pods().inNamespace(NS).withName(first).delete();

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              Pod old = cluster.pod(first);
              assertThat(old).as("the old leader is still there, terminating").isNotNull();
              assertThat(old.getMetadata().getDeletionTimestamp()).isNotNull();
              assertThat(cluster.leaders(ROLE)).hasSize(1).doesNotContain(first);
              assertThat(old.getMetadata().getLabels()).containsEntry(ROLE, "follower");
            });
    cluster.awaitLeader("payments", ROLE);
    assertThat(cluster.eventReasons("payments")).contains("LeaderTerminating");
  }

  /** Moves a pod out of every group selecting app=payments, as kubectl label --overwrite does. */
  private void relabelOut(String pod) {
    cluster
        .client
        .pods()
        .inNamespace(NS)
        .withName(pod)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            Serialization.asJson(Map.of("metadata", Map.of("labels", Map.of("app", "elsewhere")))));
  }

  private Map<String, String> annotations(String pod) {
    Map<String, String> a = cluster.pod(pod).getMetadata().getAnnotations();
    return a == null ? Map.of() : a;
  }

  @Test
  void aPodThatLeavesTheGroupLosesItsMarksOnceRedisAnswersAndALeaderThatLeavesIsReplaced() {
    String leader = cluster.startGroup("payments", 3);
    String follower =
        cluster.roles(ROLE).keySet().stream().filter(p -> !p.equals(leader)).findFirst().get();
    try (RoleWatcher watcher = new RoleWatcher(cluster.client, NS, ROLE)) {
      // Failing static, the group changes no label, a stray's included.
      cluster.redis.kill();
      cluster.awaitCondition("payments", "RedisAvailable", "False");
      relabelOut(follower);
      await()
          .during(Duration.ofSeconds(2))
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                assertThat(cluster.roles(ROLE)).containsEntry(follower, "follower");
                assertThat(annotations(follower))
                    .containsEntry(BatonNames.GROUP_ANNOTATION, "payments");
              });

      cluster.redis.restart();
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                assertThat(cluster.roles(ROLE)).doesNotContainKey(follower);
                assertThat(annotations(follower)).doesNotContainKey(BatonNames.GROUP_ANNOTATION);
              });
      assertThat(cluster.awaitLeader("payments", ROLE)).isEqualTo(leader);

      // The leader leaves: its marks go before another member is labeled leader.
      long term = cluster.term("payments");
      relabelOut(leader);
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                assertThat(cluster.roles(ROLE)).doesNotContainKeys(leader, follower);
                assertThat(cluster.leaders(ROLE)).hasSize(1);
                assertThat(annotations(leader))
                    .doesNotContainKeys(BatonNames.GROUP_ANNOTATION, BatonNames.TERM_ANNOTATION);
              });
      // The status names the new leader once it records the new term.
      assertThat(cluster.awaitLeader("payments", ROLE)).isNotEqualTo(leader);
      assertThat(cluster.term("payments")).isGreaterThan(term);
      assertThat(watcher.violations()).as(String.join("\n", watcher.history())).isEmpty();
    }
  }

  @Test
  void noReadyCandidateMeansNoLeaderAndReadyFalse() {
    cluster.startGroup("payments", 3);
    for (int i = 0; i < 3; i++) {
      cluster.setReady("payments-" + i, false);
    }
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(cluster.leaders(ROLE)).isEmpty();
              cluster
                  .assertCondition("payments", "Ready")
                  .hasStatus("False")
                  .hasReason("NoCandidates");
              assertThat(cluster.status("payments").getLeader()).isEmpty();
            });
    assertThat(cluster.redis.command("EXISTS", new ElectionKeys(NS + "/payments").holder()))
        .isEqualTo(":0");
    assertThat(cluster.eventReasons("payments")).contains("NoCandidates");
  }

  @Test
  void switchoverMovesToTheNamedPodAndRefusesAMissingOne() {
    String leader = cluster.startGroup("payments", 3);
    long termBefore = cluster.term("payments");
    try (RoleWatcher watcher = new RoleWatcher(cluster.client, NS, ROLE)) {
      annotate("baton.dev/switchover-to", "payments-2");
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                assertThat(cluster.leaders(ROLE)).containsExactly("payments-2");
                assertThat(cluster.term("payments")).isGreaterThan(termBefore);
                assertThat(cluster.get("payments").getMetadata().getAnnotations())
                    .doesNotContainKey("baton.dev/switchover-to");
              });
      assertThat(cluster.eventReasons("payments")).contains("Switchover");
      long termAfter = cluster.term("payments");

      annotate("baton.dev/switchover-to", "payments-9");
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                assertThat(cluster.eventReasons("payments")).contains("SwitchoverRefused");
                assertThat(cluster.get("payments").getMetadata().getAnnotations())
                    .doesNotContainKey("baton.dev/switchover-to");
              });
      assertThat(cluster.leaders(ROLE)).containsExactly("payments-2");
      assertThat(cluster.term("payments")).isEqualTo(termAfter);
      assertThat(watcher.violations()).as(String.join("\n", watcher.history())).isEmpty();
      assertThat(leader).isNotEqualTo("payments-2");
    }
  }

  private void annotate(String key, String value) {
    cluster.annotate("payments", key, value);
  }
}
