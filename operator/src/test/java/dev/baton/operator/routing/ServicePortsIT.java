package dev.baton.operator.routing;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.ClusterTest;
import dev.baton.testkit.EndpointsController;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
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
        new PodBuilder(PaymentsRouting.podAt(name, "orders", ip))
            .editSpec()
            .addNewInitContainer()
            .withName("baton-agent")
            .withImage("baton")
            .withRestartPolicy("Always")
            .addToPorts(PaymentsRouting.tcpPort("gate", 8080))
            .endInitContainer()
            .endSpec()
            .build();
    cluster.createPod(pod);
  }

  @Test
  void aTargetPortNamedOnlyOnANativeSidecarIsReportedAndANumericOneRoutes() {
    createPodWithSidecarGate("orders-0", 10);
    createPodWithSidecarGate("orders-1", 11);
    Service service =
        BatonCluster.leaderService("orders-leader", Map.of("app", "orders", ROLE, "leader"));
    ServicePort port = service.getSpec().getPorts().get(0);
    port.setName("http");
    port.setTargetPort(new IntOrString("gate"));
    cluster.client.services().resource(service).create();
    cluster.startOperator();
    cluster.create(Sandbox.group("orders", "orders"));
    String leader = cluster.awaitLeader("orders", ROLE);

    cluster.awaitCondition(
        "orders",
        "Routed",
        c ->
            c.as(cluster.describe("orders", ROLE))
                .hasStatus("False")
                .hasReason("PortsUnresolved")
                .hasMessageContaining(leader, "[http]"));
    EndpointSlice slice = cluster.endpointSlice("orders-leader-slice");
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
    cluster.awaitCondition(
        "orders",
        "Routed",
        c -> c.as(cluster.describe("orders", ROLE)).hasStatus("True").hasReason("RoutedToLeader"));
  }
}
