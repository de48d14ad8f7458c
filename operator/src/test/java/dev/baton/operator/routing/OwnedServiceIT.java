package dev.baton.operator.routing;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderService;
import dev.baton.api.v1alpha1.LeaderServicePort;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The one-write mode (docs/design.md, "Routing"): spec.service makes the operator own a Service
 * without a selector and its EndpointSlice, which names exactly the leader in every version and
 * goes with the group; a Service of that name that someone else owns is left alone and reported.
 */
class OwnedServiceIT extends RoutingTest {

  private static LeaderGroup groupWithService() {
    LeaderGroup g = Sandbox.group("payments", "payments");
    g.getSpec()
        .setService(
            new LeaderService(
                "payments-primary",
                List.of(new LeaderServicePort("http", 80, new IntOrString("http")))));
    return g;
  }

  @Test
  void theOwnedServicesSliceNamesExactlyTheLeaderInEveryVersionAndGoesWithTheGroup() {
    payments.createPods(3);
    List<EndpointSlice> versions = Collections.synchronizedList(new ArrayList<>());
    Watch watch =
        cluster
            .client
            .discovery()
            .v1()
            .endpointSlices()
            .inNamespace(NS)
            .watch(
                new Watcher<>() {
                  @Override
                  public void eventReceived(Action action, EndpointSlice slice) {
                    if (action != Action.DELETED
                        && slice.getMetadata().getName().equals("payments-primary-baton")) {
                      versions.add(slice);
                    }
                  }

                  @Override
                  public void onClose(WatcherException cause) {}
                });
    try {
      cluster.startOperator();
      cluster.create(groupWithService());
      String leader = cluster.awaitLeader("payments", ROLE);
      payments.awaitRoutedTo(leader, "payments-primary");

      Service svc = cluster.service("payments-primary");
      assertThat(svc.getSpec().getSelector()).isNullOrEmpty();
      assertThat(svc.getSpec().getType()).isEqualTo("ClusterIP");
      assertThat(svc.getSpec().getPorts())
          .singleElement()
          .extracting(
              ServicePort::getName, ServicePort::getPort, p -> p.getTargetPort().getStrVal())
          .containsExactly("http", 80, "http");
      assertThat(svc.getMetadata().getOwnerReferences())
          .singleElement()
          .extracting(
              OwnerReference::getKind, OwnerReference::getName, OwnerReference::getController)
          .containsExactly("LeaderGroup", "payments", true);
      assertThat(KubernetesRules.serviceProblems(svc)).isEmpty();

      for (int i = 0; i < 5; i++) {
        String old = cluster.awaitLeader("payments", ROLE);
        cluster.deletePod(old);
        await()
            .atMost(WAIT)
            .until(() -> !cluster.leaders(ROLE).isEmpty() && !cluster.leaders(ROLE).contains(old));
        payments.createPod(old, 30 + i);
        payments.awaitRoutedTo(cluster.awaitLeader("payments", ROLE), "payments-primary");
      }
      String last = cluster.awaitLeader("payments", ROLE);
      EndpointSlice slice = cluster.endpointSlice("payments-primary-baton");
      assertThat(KubernetesRules.endpointSliceProblems(slice)).isEmpty();
      assertThat(slice.getMetadata().getLabels())
          .containsEntry("kubernetes.io/service-name", "payments-primary")
          .containsEntry("endpointslice.kubernetes.io/managed-by", "baton.dev");
      assertThat(slice.getAddressType()).isEqualTo("IPv4");
      assertThat(slice.getPorts())
          .singleElement()
          .extracting(EndpointPort::getName, EndpointPort::getPort)
          .containsExactly("http", 8080);
      Endpoint only = slice.getEndpoints().get(0);
      assertThat(slice.getEndpoints()).hasSize(1);
      assertThat(only.getTargetRef().getName()).isEqualTo(last);
      assertThat(only.getAddresses()).containsExactly(cluster.pod(last).getStatus().getPodIP());

      // Every version the slice went through named one ready pod: replaced, never joined.
      await().atMost(WAIT).until(() -> versions.size() >= 6);
      synchronized (versions) {
        assertThat(versions)
            .allSatisfy(
                v -> {
                  assertThat(v.getEndpoints()).hasSize(1);
                  assertThat(v.getEndpoints().get(0).getConditions().getReady()).isTrue();
                });
      }
      // The test's EndpointSlice controller left the selector-less Service alone.
      assertThat(cluster.endpointSlice("payments-primary-slice")).isNull();

      cluster.client.resources(LeaderGroup.class).inNamespace(NS).withName("payments").delete();
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                assertThat(cluster.service("payments-primary")).isNull();
                assertThat(cluster.endpointSlice("payments-primary-baton")).isNull();
              });
    } finally {
      watch.close();
    }
  }

  @Test
  void aServiceNameTakenBySomeoneElseIsLeftAloneAndReported() {
    payments.createPod("payments-0", 10);
    cluster.createLeaderService("payments-primary", Map.of("app", "other"));
    cluster.startOperator();
    cluster.create(groupWithService());
    cluster.awaitLeader("payments", ROLE);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              payments.assertRouted().hasStatus("False").hasReason("ServiceProblem");
              payments.assertRouted().hasMessageContaining("not owned by this LeaderGroup");
              assertThat(cluster.eventReasons("payments")).contains("ServiceProblem");
            });
    Service svc = cluster.service("payments-primary");
    assertThat(svc.getSpec().getSelector()).containsEntry("app", "other");
  }
}
