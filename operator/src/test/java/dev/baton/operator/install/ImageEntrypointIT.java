package dev.baton.operator.install;

import static dev.baton.testkit.Sandbox.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.testkit.OperatorProcess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shipped jar started the way the image starts it (its entrypoint, the Dockerfile's JVM
 * options) with the environment the chart gives it: JSON logs and leader election on, in the
 * release namespace. Every line it writes, on stdout and stderr, is a JSON object; and what it asks
 * of the API server is held against the chart's RBAC like every other test's (ChartRbacAudit).
 */
class ImageEntrypointIT {

  private static final Path ENTRYPOINT =
      InstallFiles.ROOT.resolve("operator/src/main/image/baton-operator");
  private static final Path JAR_HOME = InstallFiles.ROOT.resolve("operator/target");

  @Test
  void startsWithTheChartsEnvironmentAndLogsOnlyJson(@TempDir Path dir) throws IOException {
    Path log = dir.resolve("operator.log");
    try (BatonCluster cluster = new BatonCluster()) {
      for (int i = 0; i < 3; i++) {
        cluster.createPod("payments-" + i, "payments");
      }
      cluster.create(BatonCluster.group("payments", "payments"));
      Map<String, String> env =
          Map.of(
              "BATON_REDIS_URL", cluster.redis.url(),
              "BATON_LEADER_ELECTION", "true",
              "BATON_LEADER_ELECTION_NAMESPACE", NS,
              "BATON_LEADER_ELECTION_LEASE", "1500ms",
              "BATON_LOG_FORMAT", "json",
              "BATON_LOG_LEVEL", "info");
      try (OperatorProcess operator =
          OperatorProcess.ofEntrypoint(
                  "image", cluster.kube, env, ENTRYPOINT, JAR_HOME, imageJvmOptions(), log)
              .start()) {
        String leader = cluster.awaitLeader("payments", BatonCluster.ROLE);
        cluster.deletePod(leader);
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () -> {
                  List<String> leaders = cluster.leaders(BatonCluster.ROLE);
                  return leaders.size() == 1 && !leaders.contains(leader);
                });
        await().atMost(Duration.ofSeconds(20)).until(operator::ready);
        assertThat(operator.terminate(Duration.ofSeconds(20)))
            .as("a graceful stop exits 0: the JVM's default on SIGTERM is 143, shown as Error")
            .isZero();
      }
    }

    List<String> lines = Files.readAllLines(log);
    assertThat(lines).as("the operator logged its start and the failover").hasSizeGreaterThan(2);
    ObjectMapper json = new ObjectMapper();
    for (String line : lines) {
      assertThat(isJsonObject(json, line)).as("a line that is not JSON: %s", line).isTrue();
    }
    assertThat(String.join("\n", lines))
        .contains("Baton started")
        .doesNotContain("Picked up")
        .doesNotContain("unstable version");
  }

  private static boolean isJsonObject(ObjectMapper json, String line) {
    try {
      return json.readTree(line).isObject();
    } catch (IOException e) {
      return false;
    }
  }

  /** The JVM options the Dockerfile gives the image. */
  private static String imageJvmOptions() throws IOException {
    Matcher env =
        Pattern.compile("ENV BATON_JVM_OPTIONS=\"([^\"]+)\"")
            .matcher(Files.readString(InstallFiles.DOCKERFILE));
    assertThat(env.find()).isTrue();
    return env.group(1);
  }
}
