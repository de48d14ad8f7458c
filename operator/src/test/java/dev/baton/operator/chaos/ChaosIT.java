package dev.baton.operator.chaos;

import static dev.baton.operator.chaos.ChaosReport.firstLine;
import static dev.baton.operator.chaos.ChaosWorld.GROUPS;
import static dev.baton.operator.chaos.ChaosWorld.PODS;
import static dev.baton.operator.chaos.ChaosWorld.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaseSpec;
import dev.baton.operator.BatonOperator;
import dev.baton.operator.config.OperatorConfig;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.FaultInjector;
import dev.baton.testkit.InvariantChecker;
import dev.baton.testkit.LocalRedisCluster;
import dev.baton.testkit.OperatorProcess;
import dev.baton.testkit.Sandbox;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seeded chaos runs: several groups, two operator replicas in their own JVMs electing the active
 * one through a Kubernetes Lease (or, in some runs, both with leader election off, as a
 * misconfigured install), and at random: pods deleted, readiness flipped, Redis killed and
 * restarted (with and without its data) or hung (SIGSTOP past the leases' ttl), operators killed
 * with SIGKILL and restarted, API errors (500, 409) and slow answers, switchovers. The invariant
 * checker must stay green throughout; a failure prints the seed and the history.
 *
 * <p>The test command runs a fixed list of seeds, so CI is reproducible (as far as thread timing
 * allows). Replay one with {@code -Dbaton.chaos.seed=N}, make every run longer with {@code
 * -Dbaton.chaos.seconds=600}, and soak with {@code -Dbaton.chaos.soak=K}: K runs on fresh random
 * seeds, each printed before it starts.
 *
 * <p>What a run plays is {@link Disruptions}; how it reads where the groups stand, {@link
 * ChaosWorld}; what it prints and keeps, {@link ChaosReport}.
 */
class ChaosIT {

  /**
   * The seeds of the test command, how long each runs, and whether the two operators elect the
   * active one through the Lease or both run with leader election off, as a misconfigured install
   * would. 2394008703375 once produced a repeated term (a status write failed, Redis came back
   * empty and the operator restarted); 7808202390076 is the longest clean run before it. 20261130
   * on Redis Cluster once produced a term from a former master promoted again before it synced
   * (StaleMasterFencingIT replays it). At 120 s, 2394008703375 once left a group unreconciled after
   * the operator's own fence refused a resent write (WriteFenceIT holds that fix; it passed at 120
   * s five times in a row when the fix landed): the test command runs it for 60 s, to keep the
   * suite short.
   */
  private static final List<Run> FIXED =
      List.of(
          new Run(2394008703375L, 60, true),
          new Run(7808202390076L, 60, true),
          new Run(1L, 40, false, false),
          new Run(20261130L, 60, true, true));

  private record Run(long seed, long seconds, boolean leaderElection, boolean cluster) {
    Run(long seed, long seconds, boolean leaderElection) {
      this(seed, seconds, leaderElection, false);
    }

    @Override
    public String toString() {
      return "seed "
          + seed
          + ", "
          + seconds
          + " s, leader election "
          + (leaderElection ? "on" : "off")
          + (cluster ? ", Redis Cluster" : "");
    }
  }

  static Stream<Run> runs() {
    Long seconds = Long.getLong("baton.chaos.seconds");
    Long seed = Long.getLong("baton.chaos.seed");
    int soak = Integer.getInteger("baton.chaos.soak", 0);
    boolean election = !"false".equals(System.getProperty("baton.chaos.leaderElection"));
    boolean cluster = "cluster".equals(System.getProperty("baton.chaos.redis"));
    if (seed != null) {
      return Stream.of(new Run(seed, seconds == null ? 120 : seconds, election, cluster));
    }
    if (soak > 0) {
      Random seeds = new Random();
      // Every other run with leader election off.
      return java.util.stream.IntStream.range(0, soak)
          .mapToObj(
              i ->
                  new Run(
                      seeds.nextLong() & Long.MAX_VALUE,
                      seconds == null ? 300 : seconds,
                      i % 2 == 0,
                      cluster));
    }
    return FIXED.stream()
        .map(
            r -> seconds == null ? r : new Run(r.seed(), seconds, r.leaderElection(), r.cluster()));
  }

  private long seed;
  private long seconds;
  private Random random;

  /** The Redis Cluster of a cluster run (the sandbox's single Redis stays unused); else null. */
  private LocalRedisCluster cluster;

  /** What this run plays, once its seed, length and cluster are set. */
  private Disruptions disruptions;

  @ParameterizedTest(name = "{0}")
  @MethodSource("runs")
  void invariantsHoldUnderChaos(Run run) {
    seed = run.seed();
    seconds = run.seconds();
    random = new Random(seed);
    System.out.println("chaos run: " + run);
    AtomicReference<FaultInjector> faults = new AtomicReference<>();
    EmbeddedKubernetes kube =
        EmbeddedKubernetes.start(
            real -> {
              faults.set(new FaultInjector(real, seed));
              return faults.get();
            });
    cluster = run.cluster() ? LocalRedisCluster.start() : null;
    try (Sandbox sandbox = new Sandbox(kube, BatonOperator::launch)) {
      for (int g = 0; g < GROUPS; g++) {
        for (int p = 0; p < PODS; p++) {
          sandbox.createPod("g" + g + "-" + p, "g" + g);
        }
        LeaderGroup group = Sandbox.group("g" + g, "g" + g);
        group.getSpec().setLease(new LeaseSpec("3s", "500ms"));
        sandbox.create(group);
      }
      Map<String, String> env =
          Map.of(
              OperatorConfig.REDIS_URL,
              cluster != null ? cluster.url() : sandbox.redis.url(),
              OperatorConfig.REDIS_TIMEOUT,
              "500ms",
              OperatorConfig.LEADER_ELECTION,
              Boolean.toString(run.leaderElection()),
              OperatorConfig.LEADER_ELECTION_NAMESPACE,
              NS,
              OperatorConfig.LEADER_ELECTION_LEASE,
              "3s");
      List<OperatorProcess> operators =
          List.of(
              new OperatorProcess("op-a", kube, env).start(),
              new OperatorProcess("op-b", kube, env).start());
      try (InvariantChecker checker =
          new InvariantChecker(
              sandbox.client, NS, ROLE, Duration.ofSeconds(15), () -> holders(sandbox))) {
        try {
          await().atMost(Duration.ofSeconds(60)).until(() -> allConverged(sandbox));
          checker.note("converged; chaos starts, seed " + seed);
          play(sandbox, faults.get(), operators, checker);
          heal(sandbox, faults.get(), operators, checker);
          await().atMost(Duration.ofSeconds(60)).until(() -> allConverged(sandbox));
        } catch (RuntimeException | AssertionError e) {
          // What failed and where each group stands come first: CI shows only a message's head.
          String head = "chaos run stopped: " + firstLine(e) + "\n" + convergence(sandbox);
          String report = report(checker, operators, faults.get());
          keepLogs(operators);
          throw new AssertionError(head + report + "\n" + checker.history(300), e);
        }
        if (!checker.violations().isEmpty()) {
          keepLogs(operators);
        }
        String report = report(checker, operators, faults.get());
        System.out.println(report);
        assertThat(checker.violations()).as(report + "\n" + checker.history(300)).isEmpty();
      } finally {
        operators.forEach(OperatorProcess::close);
      }
    } finally {
      closeCluster();
    }
  }

  private void play(
      Sandbox s, FaultInjector faults, List<OperatorProcess> operators, InvariantChecker checker) {
    disruptions().play(s, faults, operators, checker);
  }

  private void heal(
      Sandbox s, FaultInjector faults, List<OperatorProcess> operators, InvariantChecker checker) {
    disruptions().heal(s, faults, operators, checker);
  }

  private Disruptions disruptions() {
    if (disruptions == null) {
      disruptions = new Disruptions(random, seconds, cluster);
    }
    return disruptions;
  }

  private boolean allConverged(Sandbox s) {
    return ChaosWorld.allConverged(s, cluster);
  }

  private Map<String, String> holders(Sandbox s) {
    return ChaosWorld.holders(s, cluster);
  }

  private String convergence(Sandbox s) {
    return ChaosWorld.convergence(s, cluster);
  }

  private String report(
      InvariantChecker checker, List<OperatorProcess> operators, FaultInjector faults) {
    return ChaosReport.summary(seed, seconds, disruptions().actions(), checker, operators, faults);
  }

  private void keepLogs(List<OperatorProcess> operators) {
    ChaosReport.keepLogs(seed, operators);
  }

  private void closeCluster() {
    if (cluster != null) {
      disruptions().awaitReshards();
      cluster.close();
    }
  }
}
