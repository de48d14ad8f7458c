package dev.baton.kubectl;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockSpec;
import dev.baton.testkit.ApiRequestLog;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kubectl's flags as kubectl takes them (--kubeconfig, --context, -n, -A, --as, before or after the
 * command), -o json|yaml, help per command and exit codes; and the shipped executable reading a
 * kubeconfig with two contexts.
 */
class KubectlFlagsIT {

  private PluginCluster cluster;
  @TempDir Path dir;
  private Path kubeconfig;

  @BeforeEach
  void start() {
    cluster = new PluginCluster();
    for (String ns : List.of("shop", "billing")) {
      cluster.namespace(ns);
    }
    elected(cluster.group("shop", "payments", "payments"), "payments-0", 3);
    elected(cluster.group("billing", "ledger", "ledger"), "ledger-1", 7);
    for (int i = 0; i < 2; i++) {
      cluster
          .client
          .pods()
          .resource(Sandbox.readyPod("shop", "payments-" + i, Map.of("app", "payments")))
          .create();
      cluster
          .client
          .pods()
          .resource(Sandbox.readyPod("billing", "ledger-" + i, Map.of("app", "ledger")))
          .create();
    }
    RedisLock lock = new RedisLock();
    lock.setMetadata(new ObjectMetaBuilder().withName("nightly").withNamespace("shop").build());
    lock.setSpec(new RedisLockSpec());
    lock.getSpec().setTtl("30s");
    cluster.client.resource(lock).create();
    kubeconfig = cluster.twoContexts(dir.resolve("kubeconfig"), "shop");
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  /** The status the operator would have written: a leader, its term, Ready. */
  private void elected(LeaderGroup g, String leader, long term) {
    LeaderGroupStatus s = new LeaderGroupStatus();
    s.setLeader(leader);
    s.setTerm(term);
    s.setConditions(
        List.of(
            new ConditionBuilder()
                .withType("Ready")
                .withStatus("True")
                .withReason("LeaderElected")
                .withMessage(leader + " leads with term " + term)
                .withLastTransitionTime("2026-12-05T10:00:00Z")
                .build()));
    g.setStatus(s);
    cluster.client.resources(LeaderGroup.class).resource(g).updateStatus();
  }

  @Test
  void theShippedExecutableReportsEveryNamespaceAsJsonFromTheContextItIsGiven() throws Exception {
    Path executable = Path.of("target", "kubectl-baton").toAbsolutePath();
    assertThat(executable).as("package the module first").isExecutable();
    Path output = dir.resolve("out.json");
    Path errors = dir.resolve("err.txt");
    ProcessBuilder pb =
        new ProcessBuilder(
                executable.toString(), "status", "-A", "-o", "json", "--context", "embedded")
            .redirectOutput(output.toFile())
            .redirectError(errors.toFile());
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
    assertThat(p.exitValue()).as(Files.readString(errors)).isZero();

    JsonNode status = new ObjectMapper().readTree(output.toFile());
    assertThat(status.path("kind").asText()).isEqualTo("BatonStatus");
    assertThat(status.path("groups"))
        .extracting(g -> g.path("namespace").asText() + "/" + g.path("name").asText())
        .containsExactly("billing/ledger", "shop/payments");
    JsonNode ledger = status.path("groups").get(0);
    assertThat(ledger.path("holder").path("pod").asText()).isEqualTo("ledger-1");
    assertThat(ledger.path("holder").path("term").asLong()).isEqualTo(7);
    assertThat(ledger.path("pods"))
        .extracting(pod -> pod.path("name").asText())
        .containsExactly("ledger-0", "ledger-1");
    assertThat(ledger.path("conditions").get(0).path("reason").asText()).isEqualTo("LeaderElected");
    assertThat(status.path("locks"))
        .extracting(l -> l.path("namespace").asText() + "/" + l.path("name").asText())
        .containsExactly("shop/nightly");
  }

  @Test
  void flagsStandBeforeOrAfterTheCommandAndTheCurrentContextIsUsedWithoutOne() throws Exception {
    PluginCluster.Run yaml =
        cluster.batonWithKubeconfig(
            "--kubeconfig",
            kubeconfig.toString(),
            "status",
            "payments",
            "-o",
            "yaml",
            "--context=embedded");
    assertThat(yaml.exit()).as(yaml.err()).isZero();
    JsonNode doc = new YAMLMapper().readTree(yaml.out());
    assertThat(doc.path("groups").get(0).path("name").asText()).isEqualTo("payments");
    assertThat(doc.has("locks")).as("one group: no locks").isFalse();

    PluginCluster.Run text =
        cluster.batonWithKubeconfig(
            "--context",
            "embedded",
            "--kubeconfig",
            kubeconfig.toString(),
            "-n",
            "billing",
            "status");
    assertThat(text.exit()).as(text.err()).isZero();
    assertThat(text.out()).contains("LeaderGroup billing/ledger").doesNotContain("shop/payments");

    PluginCluster.Run current =
        cluster.batonWithKubeconfig("--kubeconfig", kubeconfig.toString(), "status");
    assertThat(current.exit()).as("the current context's server refuses connections").isEqualTo(1);
    assertThat(current.err()).startsWith("error: ");

    PluginCluster.Run unknown =
        cluster.batonWithKubeconfig(
            "--kubeconfig", kubeconfig.toString(), "--context", "nope", "status");
    assertThat(unknown.exit()).isEqualTo(1);
    assertThat(unknown.err()).contains("error: context \"nope\" does not exist");
  }

  @Test
  void asAndAsGroupImpersonateAsKubectlDoes() {
    ApiRequestLog.start();
    ApiRequestLog.drainImpersonated();

    PluginCluster.Run run =
        cluster.batonWithKubeconfig(
            "--kubeconfig",
            kubeconfig.toString(),
            "--context",
            "embedded",
            "status",
            "--as",
            "alice",
            "--as-group",
            "team-a",
            "--as-group",
            "oncall");

    assertThat(run.exit()).as(run.err()).isZero();
    List<ApiRequestLog.Impersonated> sent = ApiRequestLog.drainImpersonated();
    assertThat(sent).isNotEmpty();
    assertThat(sent)
        .allSatisfy(
            r -> {
              assertThat(r.user()).isEqualTo("alice");
              assertThat(r.groups()).containsExactlyInAnyOrder("team-a", "oncall");
            });
  }

  @Test
  void everyCommandHasItsHelpAndAWrongLineExitsTwo() {
    PluginCluster.Run root = cluster.baton("--help");
    assertThat(root.exit()).isZero();
    assertThat(root.out())
        .contains("status", "switchover", "pause", "resume", "release", "logs", "report")
        .contains("completion")
        .doesNotContain("__complete")
        .contains("--context", "--kubeconfig", "--as");

    PluginCluster.Run status = cluster.baton("status", "--help");
    assertThat(status.exit()).isZero();
    assertThat(status.out())
        .contains("Usage: kubectl baton status")
        .contains("-A, --all-namespaces")
        .contains("-o, --output")
        .contains("-n, --namespace");

    PluginCluster.Run both = cluster.baton("status", "payments", "-A");
    assertThat(both.exit()).isEqualTo(2);
    assertThat(both.err()).contains("drop -A or GROUP").contains("kubectl baton status --help");

    PluginCluster.Run format = cluster.baton("status", "-o", "xml");
    assertThat(format.exit()).isEqualTo(2);
    assertThat(format.err()).contains("xml");
  }
}
