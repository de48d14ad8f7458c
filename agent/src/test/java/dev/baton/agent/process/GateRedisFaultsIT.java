package dev.baton.agent.process;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.agent.testing.ProcessAgents;
import dev.baton.client.ElectionKeys;
import dev.baton.testkit.LocalRedis;
import dev.baton.testkit.StampedWriter;
import dev.baton.testkit.SteppedClock;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The gate under what a hostile cluster operator found among ordinary Redis events, each during a
 * hand-over whose old leader's API reads hang (its agent is not told it was demoted), with the
 * shipped jar in a process per pod and every byte checked at the applications: Redis crashed and
 * back from a snapshot saved seconds earlier, a replica that lagged promoted, Redis's wall clock
 * stepped forward, and a new term for the new leader while the old agent still polls. None may let
 * the old gate relay a byte, or take a new connection, once the new gate served.
 */
@Timeout(150)
class GateRedisFaultsIT {

  private static final Duration CONFIRM_WITHIN = ProcessAgents.CONFIRM_WITHIN;

  @TempDir Path dir;

  @Test
  void redisBackFromASnapshotSavedSecondsEarlierOpensNoSecondGate() throws Exception {
    try (ProcessAgents run = new ProcessAgents(dir, false)) {
      LocalRedis redis = run.sandbox.cluster.redis;
      run.awaitLeadingAgent();
      redis.command("SAVE");
      Thread.sleep(4000); // the leader renews meanwhile: the snapshot holds an older hold
      List<String> moved =
          run.handOverWhileTheOldReadsHang(
              redis::crashAndRestoreLastSnapshot, CONFIRM_WITHIN.multipliedBy(5));
      assertThat(run.agents.get(moved.get(1)).log())
          .as("the new leader's agent saw another incarnation of Redis")
          .contains("Redis answers as another incarnation");
    }
  }

  @Test
  void aPromotedReplicaWithAnOlderValueOpensNoSecondGate() throws Exception {
    try (ProcessAgents run = new ProcessAgents(dir, true);
        LocalRedis replica =
            LocalRedis.start(
                "--replicaof", "127.0.0.1", Integer.toString(run.sandbox.cluster.redis.port()))) {
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> replica.command("INFO", "replication").contains("master_link_status:up"));
      run.awaitLeadingAgent();
      Thread.sleep(1000);
      // The replica stops following 3 s before it is promoted: it holds the key as it was then.
      replica.command("REPLICAOF", "NO", "ONE");
      Thread.sleep(3000);
      List<String> moved =
          run.handOverWhileTheOldReadsHang(
              () -> run.redisProxies.values().forEach(p -> p.retarget("127.0.0.1", replica.port())),
              CONFIRM_WITHIN.multipliedBy(5));
      assertThat(run.agents.get(moved.get(1)).log())
          .as("the new leader's agent saw another incarnation of Redis")
          .contains("Redis answers as another incarnation");
    }
  }

  @Test
  void redisClockSteppedForwardOpensNoSecondGate() throws Exception {
    try (SteppedClock clock = new SteppedClock();
        LocalRedis stepped = LocalRedis.start(clock.environment());
        ProcessAgents run = new ProcessAgents(dir, false, stepped.port())) {
      List<String> moved =
          run.handOverWhileTheOldReadsHang(() -> clock.step(2500), CONFIRM_WITHIN.multipliedBy(3));
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () ->
                  assertThat(clockSteps(run, moved.get(1)))
                      .as("the step seen and reported")
                      .isPositive());
      assertThat(run.agents.get(moved.get(1)).log()).contains("Redis's clock stepped by");
    }
  }

  /**
   * The new leader's lease is lost and re-acquired with a newer term: its agent lets its hold go
   * and takes the key again, while the old agent, its API hanging, still polls. The old one must
   * never reopen, for its older term.
   */
  @Test
  void aNewTermForTheNewLeaderNeverLetsTheOldOneReopen() throws Exception {
    try (ProcessAgents run = new ProcessAgents(dir, false)) {
      String old = run.awaitLeadingAgent();
      String next = ProcessAgents.other(old);
      StampedWriter w = run.writerThrough(old);
      run.apiProxies.get(old).pause();
      run.sandbox.cluster.setReady(old, false);
      assertThat(run.sandbox.awaitLeaderOtherThan(old)).isEqualTo(next);
      run.sandbox.bytes.handOver(old, next);
      run.awaitGateOpen(next, CONFIRM_WITHIN.multipliedBy(3));
      long term = term(run, next);

      run.sandbox.cluster.redis.command("DEL", new ElectionKeys("shop/workers").holder());
      await().atMost(Duration.ofSeconds(10)).until(() -> term(run, next) > term);
      run.awaitGateOpen(next, CONFIRM_WITHIN.multipliedBy(3));
      run.assertNoLateBytes(w, next);
      run.apiProxies.get(old).resume();
      assertThat(run.agents.get(old).log())
          .as("the old agent never opened again")
          .containsOnlyOnce(": gates open");
    }
  }

  private static long term(ProcessAgents run, String pod) {
    var r = run.agents.get(pod).get("/v1/leadership");
    Matcher m = Pattern.compile("\"term\":(\\d+)").matcher(r == null ? "" : r.body());
    return m.find() ? Long.parseLong(m.group(1)) : -1;
  }

  private static long clockSteps(ProcessAgents run, String pod) throws Exception {
    Matcher m =
        Pattern.compile("(?m)^baton_agent_redis_clock_steps_total (\\S+)$")
            .matcher(run.probe(pod, "/metrics").body());
    return m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
  }
}
