package dev.baton.kubectl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockSpec;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Completion: the plugin answers {@code __complete} as kubectl's plugin completion expects (a
 * candidate a line, then {@code :directive}), with the names of the groups and locks in the
 * namespace the line names; and the bash script it prints, sourced in a real bash with the shipped
 * executable on PATH, completes a group's name.
 */
class CompletionIT {

  private PluginCluster cluster;
  @TempDir Path dir;
  private Path kubeconfig;

  @BeforeEach
  void start() {
    cluster = new PluginCluster();
    cluster.namespace("shop");
    cluster.namespace("billing");
    cluster.group("shop", "payments", "payments");
    cluster.group("shop", "orders", "orders");
    cluster.group("billing", "ledger", "ledger");
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

  private List<String> complete(String... words) {
    List<String> args =
        new ArrayList<>(
            List.of("__complete", "--kubeconfig", kubeconfig.toString(), "--context", "embedded"));
    args.addAll(List.of(words));
    PluginCluster.Run run = cluster.batonWithKubeconfig(args.toArray(String[]::new));
    assertThat(run.exit()).as(run.err()).isZero();
    return run.out().lines().toList();
  }

  @Test
  void groupNamesLocksCommandsAndFlagsComeFromThePluginAndTheCluster() {
    assertThat(complete("pause", "")).containsExactly("orders", "payments", ":4");
    assertThat(complete("status", "p")).containsExactly("payments", ":4");
    assertThat(complete("-n", "billing", "switchover", "")).containsExactly("ledger", ":4");
    assertThat(complete("report", "--namespace=billing", "")).containsExactly("ledger", ":4");
    assertThat(complete("release", "")).containsExactly("nightly", ":4");
    assertThat(complete(""))
        .contains("status", "switchover", "pause", "resume", "release", "logs", "report")
        .doesNotContain("__complete")
        .endsWith(":4");
    assertThat(complete("status", "--all")).containsExactly("--all-namespaces", ":4");
    assertThat(complete("-n", "")).contains("billing", "shop").endsWith(":4");
    assertThat(complete("--context", "")).containsExactly("unreachable", "embedded", ":4");
    assertThat(complete("status", "-o", "")).containsExactly("json", "yaml", ":4");
    assertThat(complete("report", "payments", "--file", ""))
        .as("a file name: the shell completes it")
        .containsExactly(":0");
  }

  @Test
  void theBashScriptCompletesGroupNamesThroughTheShippedExecutable() throws Exception {
    Path executable = Path.of("target", "kubectl-baton").toAbsolutePath();
    assertThat(executable).as("package the module first").isExecutable();
    Path script = dir.resolve("kubectl-baton.bash");
    Files.writeString(script, cluster.baton("completion", "bash").out());

    String answer =
        shell(
            "bash",
            "source "
                + script
                + "; COMP_WORDS=(kubectl-baton --kubeconfig "
                + kubeconfig
                + " --context embedded pause pay); COMP_CWORD=6; _kubectl_baton;"
                + " printf '%s\\n' \"${COMPREPLY[@]}\"",
            executable);
    assertThat(answer.lines()).containsExactly("payments");
  }

  @Test
  void theZshScriptCompletesGroupNamesThroughTheShippedExecutable() throws Exception {
    assumeTrue(onPath("zsh"), "zsh is not installed");
    Path executable = Path.of("target", "kubectl-baton").toAbsolutePath();
    Path script = dir.resolve("_kubectl_baton");
    Files.writeString(script, cluster.baton("completion", "zsh").out());
    // compadd exists only inside the completion system: a stand-in prints what it was given.
    String answer =
        shell(
            "zsh",
            "compadd() { shift; print -l -- ${(P)1} }; source "
                + script
                + "; words=(kubectl-baton --kubeconfig "
                + kubeconfig
                + " --context embedded pause pay); CURRENT=7; _kubectl_baton",
            executable);
    assertThat(answer.lines()).containsExactly("payments");
  }

  private static String shell(String shell, String command, Path executable) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(shell, "-c", command).redirectErrorStream(true);
    pb.environment()
        .put(
            "PATH",
            executable.getParent()
                + File.pathSeparator
                + Path.of(System.getProperty("java.home"), "bin")
                + File.pathSeparator
                + System.getenv("PATH"));
    Process p = pb.start();
    assertThat(p.waitFor(2, TimeUnit.MINUTES)).isTrue();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.exitValue()).as(out).isZero();
    return out;
  }

  private static boolean onPath(String program) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(d, program))) {
        return true;
      }
    }
    return false;
  }
}
