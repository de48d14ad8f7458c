package dev.baton.operator.routing;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.operator.testing.ClusterTest;
import dev.baton.testkit.EndpointsController;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A leader Service whose named targetPort is declared only on a native sidecar, as the agent
 * example once had it: the test kit's EndpointSlice controller resolves named ports as Kubernetes
 * before 1.33 does (main containers only), so the slice lists the leader without ports, as a real
 * cluster left it, and nothing would route. The group must say so.
 */
class ServicePortsIT extends ClusterTest {

  private EndpointsController endpoints;

  @BeforeEach
  void start() {
    endpoints = new EndpointsController(cluster.client, NS);
  }

  @AfterEach
  void stop() {
    endpoints.close();
  }

  /** A ready pod whose only declared port, gate, is on a native sidecar (an init container). */
  private void createPodWithSidecarGate(String name, int ip) {
    Pod pod =
        new PodBuilder(Sandbox.readyPod(NS, name, Map.of("app", "orders")))
            .editSpec()
            .addNewInitContainer()
            .withName("baton-agent")
            .withImage("baton")
            .withRestartPolicy("Always")
            .addNewPort()
            .withName("gate")
            .withContainerPort(8080)
            .withProtocol("TCP")
            .endPort()
            .endInitContainer()
            .endSpec()
            .editStatus()
            .withPodIP("10.1.0." + ip)
            .endStatus()
            .build();
    cluster.createPod(pod);
  }

  private Condition routed() {
    return cluster.condition("orders", "Routed").orElseThrow(() -> new AssertionError("no Routed"));
  }

  @Test
  void aTargetPortNamedOnlyOnANativeSidecarIsReportedAndANumericOneRoutes() {
    createPodWithSidecarGate("orders-0", 10);
    createPodWithSidecarGate("orders-1", 11);
    cluster
        .client
        .services()
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName("orders-leader")
                .withNamespace(NS)
                .endMetadata()
                .withNewSpec()
                .withSelector(Map.of("app", "orders", ROLE, "leader"))
                .addNewPort()
                .withName("http")
                .withPort(80)
                .withTargetPort(new IntOrString("gate"))
                .endPort()
                .endSpec()
                .build())
        .create();
    cluster.startOperator();
    cluster.create(Sandbox.group("orders", "orders"));
    String leader = cluster.awaitLeader("orders", ROLE);

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(routed().getStatus())
                  .as(cluster.describe("orders", ROLE))
                  .isEqualTo("False");
              assertThat(routed().getReason()).isEqualTo("PortsUnresolved");
              assertThat(routed().getMessage()).contains(leader).contains("[http]");
            });
    EndpointSlice slice =
        cluster
            .client
            .discovery()
            .v1()
            .endpointSlices()
            .inNamespace(NS)
            .withName("orders-leader-slice")
            .get();
    assertThat(slice.getEndpoints())
        .singleElement()
        .satisfies(e -> assertThat(e.getTargetRef().getName()).isEqualTo(leader));
    assertThat(slice.getPorts()).as("as Kubernetes 1.32 left it").isNullOrEmpty();

    cluster
        .client
        .services()
        .inNamespace(NS)
        .withName("orders-leader")
        .edit(
            s -> {
              s.getSpec().getPorts().get(0).setTargetPort(new IntOrString(8080));
              return s;
            });
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(routed().getStatus())
                  .as(cluster.describe("orders", ROLE))
                  .isEqualTo("True");
              assertThat(routed().getReason()).isEqualTo("RoutedToLeader");
            });
  }
}
