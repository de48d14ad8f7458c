package dev.baton.kubectl;

import static dev.baton.testkit.Sandbox.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockSpec;
import dev.baton.operator.BatonOperator;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.Kubeconfig;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kubectl baton against the embedded API server and the real operator: what status shows, and each
 * lever carried out by the operator and reported, or refused and said so.
 */
class KubectlBatonIT {

  private static final Duration WAIT = Duration.ofSeconds(20);
  private static final String ROLE = "baton.dev/role";

  private Sandbox cluster;

  /** What one run printed, and its exit code. */
  record Run(int exit, String out, String err) {}

  @BeforeEach
  void start() {
    cluster = new Sandbox(EmbeddedKubernetes.start(), BatonOperator::launch);
    for (int i = 0; i < 3; i++) {
      cluster.createPod("payments-" + i, "payments");
    }
    cluster.startOperator();
    cluster.create(Sandbox.group("payments", "payments"));
    awaitLeader("payments-0");
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  private Run baton(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        KubectlBaton.run(
            args,
            cluster.client,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  private void awaitLeader(String pod) {
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(cluster.leaders(ROLE)).containsExactly(pod);
              LeaderGroup g = cluster.get("payments");
              assertThat(g.getStatus()).isNotNull();
              assertThat(g.getStatus().getLeader()).isEqualTo(pod);
            });
  }

  /** A RedisLock "nightly" the operator grants to a payments pod; returns once it is granted. */
  private void grantNightlyLock() {
    RedisLock lock = new RedisLock();
    lock.setMetadata(new ObjectMetaBuilder().withName("nightly").withNamespace(NS).build());
    lock.setSpec(new RedisLockSpec());
    lock.getSpec().setTtl("30s");
    lock.getSpec()
        .setHolderSelector(
            new LabelSelectorBuilder().withMatchLabels(Map.of("app", "payments")).build());
    cluster.client.resource(lock).create();
    await()
        .atMost(WAIT)
        .until(
            () -> {
              RedisLock l =
                  cluster
                      .client
                      .resources(RedisLock.class)
                      .inNamespace(NS)
                      .withName("nightly")
                      .get();
              return l.getStatus() != null && l.getStatus().getFencingToken() != null;
            });
  }

  @Test
  void statusShowsTheThreeViewsTheLastChangesAndTheLocks() {
    grantNightlyLock();

    Run run = baton("-n", NS, "status");

    assertThat(run.exit()).as(run.err()).isZero();
    System.out.println(run.out());
    assertThat(run.out())
        .contains("LeaderGroup shop/payments")
        .contains("Ready=True")
        .contains("Redis holder (as last recorded): payments-0, term 1")
        .containsPattern("payments-0\\s+leader\\s+True\\s+1")
        .containsPattern("payments-1\\s+follower\\s+True")
        .containsPattern("\\S+\\s+Initial\\s+")
        .contains("RedisLocks in shop:")
        .containsPattern("nightly\\s+shop/payments-0\\s+1\\s+");
  }

  @Test
  void statusInTheMiddleOfAFailoverShowsThePendingMove() {
    cluster
        .client
        .resources(LeaderGroup.class)
        .inNamespace(NS)
        .withName("payments")
        .edit(
            g -> {
              g.getSpec().setFailoverDelay("1h");
              return g;
            });
    await()
        .atMost(WAIT)
        .until(
            () ->
                cluster.get("payments").getStatus().getObservedGeneration()
                    >= cluster.get("payments").getMetadata().getGeneration());
    cluster.setReady("payments-0", false);
    await()
        .atMost(WAIT)
        .until(() -> cluster.get("payments").getStatus().getPendingFailover() != null);

    Run run = baton("--namespace=shop", "status", "payments");

    System.out.println(run.out());
    assertThat(run.exit()).isZero();
    assertThat(run.out())
        .contains("Failover pending: payments-0 is not ready")
        .containsPattern("payments-0\\s+leader\\s+False")
        .doesNotContain("RedisLocks in");
  }

  @Test
  void switchoverToANamedPodWaitsForItToLead() {
    Run run = baton("-n", NS, "switchover", "payments", "--to", "payments-2");

    assertThat(run.exit()).as(run.out() + run.err()).isZero();
    assertThat(run.out())
        .contains("asked to hand leadership from payments-0 (term 1) to payments-2")
        .contains("payments-2 leads now with term 2");
    assertThat(cluster.leaders(ROLE)).containsExactly("payments-2");
  }

  @Test
  void switchoverWithoutATargetPicksTheBestReadyFollower() {
    cluster.setReady("payments-1", false);

    Run run = baton("-n", NS, "switchover", "payments");

    assertThat(run.exit()).as(run.out() + run.err()).isZero();
    assertThat(run.out()).contains("to payments-2").contains("payments-2 leads now");
  }

  @Test
  void aRefusedSwitchoverSaysWhyAndFails() {
    cluster.setReady("payments-1", false);

    Run run = baton("-n", NS, "switchover", "payments", "--to", "payments-1");

    assertThat(run.exit()).as(run.out()).isEqualTo(1);
    assertThat(run.out()).contains("The operator refused:").contains("payments-1");
    assertThat(cluster.leaders(ROLE)).containsExactly("payments-0");
  }

  @Test
  void pauseAndResumeSetTheSpecAndWaitForTheOperator() {
    Run paused = baton("-n", NS, "pause", "payments");
    assertThat(paused.exit()).as(paused.out()).isZero();
    assertThat(paused.out())
        .contains("spec.paused set to true; leadership stays with payments-0")
        .contains("The operator saw it");
    assertThat(cluster.get("payments").getSpec().getPaused()).isTrue();

    Run resumed = baton("-n", NS, "resume", "payments", "--no-wait");
    assertThat(resumed.exit()).isZero();
    assertThat(resumed.out()).contains("spec.paused set to false").doesNotContain("saw it");
    assertThat(cluster.get("payments").getSpec().getPaused()).isFalse();
  }

  @Test
  void releaseForceReleasesAGrantedLockAndSaysWhereItWent() {
    grantNightlyLock();

    Run run = baton("-n", NS, "release", "nightly");

    assertThat(run.exit()).as(run.out() + run.err()).isZero();
    assertThat(run.out())
        .contains("asked to release it from shop/payments-0 (token 1)")
        .contains("Released (");
  }

  @Test
  void badUsageExitsTwoWithTheUsage() {
    Run run = baton("switchover");
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err())
        .contains("error: Missing required parameter: 'GROUP'")
        .contains("See 'kubectl baton switchover --help' for usage.");

    Run unknown = baton("frobnicate");
    assertThat(unknown.exit()).isEqualTo(2);
    assertThat(unknown.err())
        .contains("error: unknown command \"frobnicate\" for \"kubectl baton\"")
        .contains("See 'kubectl baton --help' for usage.");

    Run missing = baton("-n", NS, "pause", "nope");
    assertThat(missing.exit())
        .as("a group that does not exist is a failure, not a usage error")
        .isEqualTo(1);
    assertThat(missing.err()).contains("error: no LeaderGroup nope in namespace shop");

    assertThat(baton("-n", NS, "status", "nope").out()).contains("No LeaderGroup nope");
  }

  @Test
  void theBuiltExecutableRunsWithTheUsersKubeconfig(@TempDir Path dir) throws Exception {
    Path executable = Path.of("target", "kubectl-baton");
    assertThat(executable).as("package the module first").isExecutable();
    Path kubeconfig =
        Kubeconfig.write(
            dir.resolve("kubeconfig"), ((EmbeddedKubernetes) cluster.kube).url(), "default");
    Path output = dir.resolve("out.txt");
    ProcessBuilder pb =
        new ProcessBuilder(List.of(executable.toAbsolutePath().toString(), "-n", NS, "status"))
            .redirectErrorStream(true)
            .redirectOutput(output.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("KUBE"));
    pb.environment().put("KUBECONFIG", kubeconfig.toString());
    pb.environment()
        .put(
            "PATH",
            Path.of(System.getProperty("java.home"), "bin")
                + java.io.File.pathSeparator
                + System.getenv("PATH"));
    Process p = pb.start();
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    String printed = Files.readString(output);
    assertThat(p.exitValue()).as(printed).isZero();
    assertThat(printed).contains("LeaderGroup shop/payments").contains("payments-0, term 1");
  }
}
