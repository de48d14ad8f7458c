package dev.baton.operator.leadergroup;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.FaultClusterTest;
import dev.baton.testkit.FaultInjector;
import dev.baton.testkit.InvariantChecker;
import io.fabric8.kubernetes.api.model.Pod;
import org.junit.jupiter.api.Test;

/**
 * The interleaving the chaos run found (seed 2394008703375): a new leader's term is shown on its
 * pod while the status write that would record it fails, the operator that knew the term only in
 * memory is killed, Redis comes back empty, and the pod that showed the term is gone. A term
 * derived from what survives must still be above every term any pod ever showed.
 */
class TermFencingIT extends FaultClusterTest {

  @Test
  void aTermShownOnAPodIsNeverIssuedAgainAfterAFailedStatusWriteRedisDataLossAndARestart() {
    cluster.createPods("payments", 3);
    cluster.startOperator();
    try (InvariantChecker checker =
        new InvariantChecker(cluster.client, NS, ROLE, WAIT, () -> cluster.holders("payments"))) {
      cluster.create(BatonCluster.group("payments", "payments"));
      String first = cluster.awaitLeader("payments", ROLE);
      assertThat(term(cluster.pod(first))).isEqualTo(1);

      // From now on every status write of the group fails, as under an API server in trouble.
      faults.get().failAll(FaultInjector.statusWrites("leadergroups", "payments"));
      cluster.deletePod(first);
      String second =
          await()
              .atMost(WAIT)
              .until(
                  () -> cluster.soleLeader(ROLE),
                  p -> p != null && !p.equals(first) && term(cluster.pod(p)) == 2);
      assertThat(cluster.status("payments").getTerm())
          .as("the status write of term 2 failed")
          .isEqualTo(1);

      // The operator that knew term 2 dies, Redis comes back empty, the pod that showed term 2
      // goes, and the API server heals.
      cluster.stopOperator();
      cluster.redis.restart(false);
      checker.disrupted("operator stopped, Redis restarted empty");
      cluster.deletePod(second);
      faults.get().clear();

      cluster.startOperator();
      String third =
          await()
              .atMost(WAIT)
              .until(() -> cluster.soleLeader(ROLE), p -> p != null && !p.equals(second));
      long thirdTerm = term(cluster.pod(third));
      assertThat(thirdTerm).as(cluster.describe("payments", ROLE)).isGreaterThan(2);
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> assertThat(cluster.status("payments").getTerm()).isEqualTo(thirdTerm));
      assertThat(checker.violations()).as(checker.history(100)).isEmpty();
    }
  }

  /**
   * Another operator replica reserved terms up to 500 on another Redis process (a replica promoted
   * while this Redis hung) and may have issued them there. This Redis's own reservation is still
   * valid by its ids, but lower: the next term must start above 500 all the same.
   */
  @Test
  void aReservationRecordedSinceOnAnotherRedisIsNeverUndercut() {
    String first = cluster.startGroup("payments", 3);
    assertThat(term(cluster.pod(first))).isEqualTo(1);
    cluster.recordReservedTerm("payments", 500L);
    await().atMost(WAIT).until(() -> cluster.status("payments").getReservedTerm() == 500L);

    cluster.deletePod(first);
    String second =
        await()
            .atMost(WAIT)
            .until(() -> cluster.soleLeader(ROLE), p -> p != null && !p.equals(first));
    assertThat(term(cluster.pod(second))).as(cluster.describe("payments", ROLE)).isGreaterThan(500);
  }

  private static long term(Pod pod) {
    var a = pod == null ? null : pod.getMetadata().getAnnotations();
    String t = a == null ? null : a.get("baton.dev/term");
    return t == null ? 0 : Long.parseLong(t);
  }
}
