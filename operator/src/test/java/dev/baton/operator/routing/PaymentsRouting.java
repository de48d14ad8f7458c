package dev.baton.operator.routing;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.RouteStatus;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.ConditionAssert;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.ContainerPortBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The payments group's routing as the routing tests set it up and read it: its pods as a kubelet
 * would report them (so the test's EndpointSlice controller can list them), Services over them, and
 * the group's Routed condition and status.routing.
 */
final class PaymentsRouting {

  private final BatonCluster cluster;

  PaymentsRouting(BatonCluster cluster) {
    this.cluster = cluster;
  }

  /** A ready pod of {@code app} at 10.1.0.{@code ip}, as a kubelet would report it. */
  static Pod podAt(String name, String app, int ip) {
    return new PodBuilder(Sandbox.readyPod(NS, name, Map.of("app", app)))
        .editStatus()
        .withPodIP("10.1.0." + ip)
        .endStatus()
        .build();
  }

  /** A container's port, over TCP. */
  static ContainerPort tcpPort(String name, int port) {
    return new ContainerPortBuilder()
        .withName(name)
        .withContainerPort(port)
        .withProtocol("TCP")
        .build();
  }

  /** A ready pod with an IP and a container port named http, as a kubelet would report it. */
  void createPod(String name, int ip) {
    Pod pod =
        new PodBuilder(podAt(name, "payments", ip))
            .editSpec()
            .editFirstContainer()
            .addToPorts(tcpPort("http", 8080))
            .endContainer()
            .withNodeName("node-1")
            .endSpec()
            .build();
    cluster.createPod(pod);
  }

  void createPods(int n) {
    for (int i = 0; i < n; i++) {
      createPod("payments-" + i, 10 + i);
    }
  }

  Condition routed() {
    return cluster
        .condition("payments", "Routed")
        .orElseThrow(() -> new AssertionError("no Routed"));
  }

  /** The Routed condition, to assert on; failing while there is none. */
  ConditionAssert assertRouted() {
    return cluster.assertCondition("payments", "Routed");
  }

  /** Waits until there is a Routed condition that passes {@code check}. */
  void awaitRouted(Consumer<ConditionAssert> check) {
    cluster.awaitCondition("payments", "Routed", check);
  }

  List<RouteStatus> routing() {
    List<RouteStatus> r = cluster.status("payments").getRouting();
    return r == null ? List.of() : r;
  }

  void awaitRoutedTo(String leader, String service) {
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(routed().getStatus())
                  .as(cluster.describe("payments", ROLE))
                  .isEqualTo("True");
              assertThat(routing())
                  .anySatisfy(
                      r -> {
                        assertThat(r.getService()).isEqualTo(service);
                        assertThat(r.getEndpoints()).containsExactly(leader);
                        assertThat(r.getRouted()).isTrue();
                      });
            });
  }
}
