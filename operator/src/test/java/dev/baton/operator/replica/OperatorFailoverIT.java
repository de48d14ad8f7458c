package dev.baton.operator.replica;

import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.FaultClusterTest;
import dev.baton.testkit.FaultInjector;
import dev.baton.testkit.InvariantChecker;
import dev.baton.testkit.OperatorProcess;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The operator's own failover, with two operator processes electing the active one through the
 * Lease baton-operator: the active one killed (SIGKILL), stopped (SIGTERM) or frozen (SIGSTOP), and
 * the leader pod deleted right after. The invariant checker watches every label meanwhile.
 */
class OperatorFailoverIT extends FaultClusterTest {

  private static final String ROLE = BatonCluster.ROLE;

  private InvariantChecker checker;
  private List<OperatorProcess> operators;

  @BeforeEach
  void start() {
    cluster.createPods("payments", 3);
    cluster.create(BatonCluster.group("payments", "payments"));
    checker =
        new InvariantChecker(cluster.client, NS, ROLE, WAIT, () -> cluster.holders("payments"));
  }

  @AfterEach
  void stop() {
    checker.close();
    if (operators != null) {
      operators.forEach(OperatorProcess::close);
    }
  }

  /** Two operator processes, the group led; the active one of the two. */
  private OperatorProcess twoReplicas(String lease) {
    Map<String, String> env = new HashMap<>();
    env.put("BATON_REDIS_URL", cluster.redis.url());
    env.put("BATON_REDIS_TIMEOUT", "500ms");
    env.put("BATON_LEADER_ELECTION", "true");
    env.put("BATON_LEADER_ELECTION_NAMESPACE", NS);
    env.put("BATON_LEADER_ELECTION_LEASE", lease);
    operators =
        List.of(
            new OperatorProcess("op-a", cluster.kube, env).start(),
            new OperatorProcess("op-b", cluster.kube, env).start());
    cluster.awaitLeader("payments", ROLE);
    await().atMost(WAIT).until(() -> operators.stream().allMatch(OperatorProcess::ready));
    return active();
  }

  private OperatorProcess active() {
    String holder = lease().getSpec().getHolderIdentity();
    return operators.stream().filter(o -> o.name().equals(holder)).findFirst().orElseThrow();
  }

  private OperatorProcess standby(OperatorProcess active) {
    return operators.stream().filter(o -> o != active).findFirst().orElseThrow();
  }

  private Lease lease() {
    return cluster.client.resources(Lease.class).inNamespace(NS).withName("baton-operator").get();
  }

  @Test
  void aKilledActiveReplicaIsReplacedAndTheLeaderPodDeletedRightAfterIsReplacedToo() {
    OperatorProcess active = twoReplicas("1500ms");
    String leader = cluster.awaitLeader("payments", ROLE);

    long killedAt = System.nanoTime();
    active.kill();
    checker.disrupted(active.name() + " killed");
    cluster.deletePod(leader);

    String next =
        await()
            .atMost(WAIT)
            .pollInterval(Duration.ofMillis(10))
            .until(this::soleLeader, p -> p != null && !p.equals(leader));
    long millis = (System.nanoTime() - killedAt) / 1_000_000;
    assertThat(lease().getSpec().getHolderIdentity()).isEqualTo(standby(active).name());
    assertThat(checker.violations()).as(checker.history(60)).isEmpty();
    System.out.printf(
        "operator failover: %s killed, leader %s deleted; %s labeled after %d ms%n",
        active.name(), leader, next, millis);
  }

  @Test
  void aStoppedActiveReplicaHandsOverWithoutWaitingForItsLease() {
    // A lease far longer than the wait below: a handover that waited for it would time out.
    OperatorProcess active = twoReplicas("60s");
    OperatorProcess standby = standby(active);
    String leader = cluster.awaitLeader("payments", ROLE);

    active.terminate(WAIT);
    assertThat(active.alive()).isFalse();
    cluster.deletePod(leader);

    await().atMost(WAIT).until(() -> standby.name().equals(lease().getSpec().getHolderIdentity()));
    await().atMost(WAIT).until(this::soleLeader, p -> p != null && !p.equals(leader));
    assertThat(checker.violations()).as(checker.history(60)).isEmpty();
  }

  @Test
  void aFrozenActiveReplicaThatComesBackActsOnNothingAndGivesWay() {
    OperatorProcess frozen = twoReplicas("1500ms");
    OperatorProcess standby = standby(frozen);
    String leader = cluster.awaitLeader("payments", ROLE);

    frozen.freeze();
    checker.disrupted(frozen.name() + " frozen");
    await().atMost(WAIT).until(() -> standby.name().equals(lease().getSpec().getHolderIdentity()));
    // The world changes while it is frozen: its caches are stale from now on.
    cluster.deletePod(leader);
    String next = await().atMost(WAIT).until(this::soleLeader, p -> p != null && !p.equals(leader));
    long thawedAt = System.nanoTime();
    frozen.thaw();

    await().atMost(WAIT).until(() -> !frozen.alive());
    List<FaultInjector.Seen> stale =
        faults.get().writes().stream()
            .filter(w -> w.atNanos() > thawedAt)
            .filter(w -> w.userAgent() != null && w.userAgent().contains(frozen.name()))
            // Its Lease client carries its name too: a renewal it tries on thawing is a
            // compare-and-set on the version it saw, refused (409); the lease assertion below
            // shows the standby kept it. What must not come is a write through its fenced client.
            .filter(w -> !w.path().contains("/leases/baton-operator"))
            .toList();
    assertThat(stale).as("writes of the replica that was frozen, after it thawed").isEmpty();
    assertThat(soleLeader()).isEqualTo(next);
    assertThat(lease().getSpec().getHolderIdentity()).isEqualTo(standby.name());
    assertThat(checker.violations()).as(checker.history(60)).isEmpty();
  }

  @Test
  void aStandbyLetsNoEventThroughAndTakesOverEveryResourceWhenActive() throws Exception {
    OperatorProcess active = twoReplicas("1500ms");
    OperatorProcess standby = standby(active);
    // A new RedisLock needs its finalizer first: a standby that handled its events would try to
    // add it, and its fence would refuse.
    cluster.create(BatonCluster.grantedLock("jobs", "10s", "payments"));
    String holder =
        await()
            .atMost(WAIT)
            .until(() -> cluster.lockStatus("jobs").getHolder(), h -> h != null && !h.isEmpty());
    String holderPod = holder.substring(holder.indexOf('/') + 1);
    String groupLeader = cluster.awaitLeader("payments", ROLE);
    assertThat(cluster.lock("jobs").getMetadata().getFinalizers()).isNotEmpty();
    String standbyLog = Files.readString(standby.log());
    assertThat(standbyLog).doesNotContain("not the active operator replica");
    // JOSDK's words for a failed reconcile, with retry on and without ("Uncaught error ...").
    assertThat(standbyLog).doesNotContainIgnoringCase("error during event processing");

    // Taking over, the standby looks at both resources although none of their events passed.
    active.kill();
    checker.disrupted(active.name() + " killed");
    await().atMost(WAIT).until(() -> standby.name().equals(lease().getSpec().getHolderIdentity()));
    // The lock's holder and the group's leader both go (one pod or two), so that each resource
    // needs the new active replica to act.
    cluster.deletePod(holderPod);
    if (!groupLeader.equals(holderPod)) {
      cluster.deletePod(groupLeader);
    }
    await()
        .atMost(WAIT)
        .until(
            () -> cluster.lockStatus("jobs").getHolder(),
            h -> h != null && !h.isEmpty() && !h.equals(holder));
    await()
        .atMost(WAIT)
        .until(this::soleLeader, p -> p != null && !p.equals(groupLeader) && !p.equals(holderPod));
    assertThat(checker.violations()).as(checker.history(60)).isEmpty();
  }

  private String soleLeader() {
    return cluster.soleLeader(ROLE);
  }
}
