package dev.baton.operator.leadergroup;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.operator.testing.BatonCluster;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.Kubeconfig;
import dev.baton.testkit.RealKubernetes;
import io.fabric8.kubernetes.api.model.PodSchedulingGate;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The test kit's real-cluster mode (BATON_TEST_KUBECONFIG), run against an API server reached only
 * through a kubeconfig, as a real cluster would be: CRDs applied, the namespace prepared, pods held
 * unscheduled with their status written after creation, and an election and a failover on them.
 */
class RealClusterModeIT {

  @Test
  void theScenariosRunThroughAKubeconfigOnPodsNoKubeletRuns(@TempDir Path dir) throws IOException {
    try (EmbeddedKubernetes server = EmbeddedKubernetes.start()) {
      Path kubeconfig = Kubeconfig.write(dir.resolve("kubeconfig"), server.url(), "default");
      try (BatonCluster cluster = new BatonCluster(RealKubernetes.connect(kubeconfig))) {
        assertThat(cluster.kube.real()).isTrue();
        for (int i = 0; i < 3; i++) {
          cluster.createPod("payments-" + i, "payments");
        }
        assertThat(cluster.pod("payments-0").getSpec().getSchedulingGates())
            .extracting(PodSchedulingGate::getName)
            .as("held unscheduled: no kubelet runs it")
            .containsExactly("baton.dev/no-kubelet");
        assertThat(cluster.pod("payments-0").getStatus().getPhase()).isEqualTo("Running");
        cluster.startOperator();
        cluster.create(BatonCluster.group("payments", "payments"));
        String first = cluster.awaitLeader("payments", ROLE);
        cluster.deletePod(first);
        await()
            .atMost(Duration.ofSeconds(20))
            .until(
                () -> {
                  var leaders = cluster.leaders(ROLE);
                  return leaders.size() == 1 && !leaders.contains(first);
                });
        assertThat(cluster.status("payments").getTerm()).isEqualTo(2);
      }
    }
  }
}
