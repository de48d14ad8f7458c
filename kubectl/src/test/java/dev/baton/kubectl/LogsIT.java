package dev.baton.kubectl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testkit.PodSubresources;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * kubectl baton logs: the active operator found by its Lease (not the standby beside it), and the
 * agents beside a group's pods, each line prefixed with pod and container.
 */
class LogsIT {

  private PluginCluster cluster;
  private PodSubresources logs;

  @BeforeEach
  void start() {
    cluster = new PluginCluster();
    logs = cluster.kube.podSubresources();
    cluster.namespace("shop");
    cluster.namespace("baton-system");
    for (String pod :
        new String[] {"baton-operator-6f7c9-active", "baton-operator-6f7c9-standby"}) {
      cluster
          .client
          .pods()
          .resource(
              new PodBuilder(
                      Sandbox.readyPod(
                          "baton-system", pod, Map.of("app.kubernetes.io/name", "baton-operator")))
                  .editSpec()
                  .editFirstContainer()
                  .withName("operator")
                  .endContainer()
                  .endSpec()
                  .build())
          .create();
    }
    logs.write("baton-system", "baton-operator-6f7c9-standby", "operator", "standing by\n");
    logs.write(
        "baton-system",
        "baton-operator-6f7c9-active",
        "operator",
        "started\ntook the Lease\nshop/payments: payments-0 leads with term 1\n");
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  private void lease(String holder) {
    cluster
        .client
        .leases()
        .inNamespace("baton-system")
        .resource(
            new LeaseBuilder()
                .withNewMetadata()
                .withName("baton-operator")
                .withNamespace("baton-system")
                .endMetadata()
                .withNewSpec()
                .withHolderIdentity(holder)
                .withLeaseDurationSeconds(2)
                .endSpec()
                .build())
        .create();
  }

  @Test
  void theOperatorsLogIsTheActiveReplicasByItsLease() {
    lease("baton-operator-6f7c9-active");

    PluginCluster.Run run = cluster.baton("logs", "--tail", "2");

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out().lines())
        .containsExactly("took the Lease", "shop/payments: payments-0 leads with term 1");
    assertThat(run.err())
        .contains("baton-system/baton-operator-6f7c9-active (Lease baton-operator");
  }

  @Test
  void withoutTheLeaseItSaysWhereItLookedAndFails() {
    PluginCluster.Run run = cluster.baton("logs", "--operator-namespace", "baton-system");

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err()).contains("no Lease baton-operator in namespace baton-system");
  }

  @Test
  void aGroupsAgentsLogsArePrefixedWithPodAndContainer() {
    cluster.group("shop", "payments", "payments");
    for (int i = 0; i < 2; i++) {
      cluster.podWithAgent("shop", "payments-" + i, "payments", "10.0.0." + (i + 1), 4041);
      logs.write(
          "shop",
          "payments-" + i,
          "baton-agent",
          "agent " + i + " up\nleading: " + (i == 0) + "\n");
      logs.write("shop", "payments-" + i, "app", "the app's own log\n");
    }

    PluginCluster.Run run = cluster.baton("-n", "shop", "logs", "payments");

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out().lines())
        .containsExactly(
            "[payments-0/baton-agent] agent 0 up",
            "[payments-0/baton-agent] leading: true",
            "[payments-1/baton-agent] agent 1 up",
            "[payments-1/baton-agent] leading: false");
  }
}
