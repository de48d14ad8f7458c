package dev.baton.operator.leadergroup;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.client.BatonNames;
import dev.baton.operator.testing.ClusterTest;
import dev.baton.testkit.RoleWatcher;
import org.junit.jupiter.api.Test;

/**
 * A pod annotated baton.dev/candidate: "false" is drained from leadership without being deleted:
 * never elected, and switched away from at once while it leads. Real Redis, the mock API server.
 */
class CandidateOptOutIT extends ClusterTest {

  private void optOut(String pod, String value) {
    cluster.editPod(
        pod,
        p -> {
          p.getMetadata().getAnnotations().put(BatonNames.CANDIDATE_ANNOTATION, value);
          return p;
        });
  }

  @Test
  void anOptedOutLeaderIsSwitchedAwayFromAndAnOptedOutPodIsNeverElected() {
    String leader = cluster.startGroup("payments", 3);
    String optedOutFollower = leader.equals("payments-1") ? "payments-2" : "payments-1";
    String remaining =
        java.util.stream.Stream.of("payments-0", "payments-1", "payments-2")
            .filter(p -> !p.equals(leader) && !p.equals(optedOutFollower))
            .findFirst()
            .orElseThrow();
    long termBefore = cluster.term("payments");
    try (RoleWatcher watcher = new RoleWatcher(cluster.client, NS, ROLE)) {
      optOut(optedOutFollower, "false");
      optOut(leader, "false");

      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                assertThat(cluster.leaders(ROLE))
                    .as(cluster.describe("payments", ROLE))
                    .containsExactly(remaining);
                assertThat(cluster.term("payments")).isGreaterThan(termBefore);
                assertThat(cluster.status("payments").getLeader()).isEqualTo(remaining);
              });
      assertThat(cluster.eventReasons("payments")).contains("LeaderOptedOut");
      assertThat(cluster.roles(ROLE))
          .containsEntry(leader, "follower")
          .containsEntry(optedOutFollower, "follower");
      cluster.assertCondition("payments", "Ready").hasStatus("True");

      // The last candidate opted out too: nobody may lead, none of them is elected.
      optOut(remaining, "false");
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                assertThat(cluster.leaders(ROLE)).isEmpty();
                cluster.assertCondition("payments", "Ready").hasReason("NoCandidates");
              });

      // Back in: an opted-in pod is a candidate again.
      optOut(leader, "true");
      await()
          .atMost(WAIT)
          .untilAsserted(() -> assertThat(cluster.leaders(ROLE)).containsExactly(leader));
      assertThat(watcher.violations()).as(String.join("\n", watcher.history())).isEmpty();
    }
  }
}
