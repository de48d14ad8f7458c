package dev.baton.operator.routing;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderService;
import dev.baton.api.v1alpha1.LeaderServicePort;
import dev.baton.api.v1alpha1.RouteStatus;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.BatonClusterExtension;
import dev.baton.testkit.EndpointsController;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Traffic follows the leader (docs/design.md, "Routing"): the Routed condition and status.routing
 * against Services routed by the test's EndpointSlice controller, the one-write mode's own slice,
 * and spec.failoverDelay.
 */
class RoutingIT {

  private static final Duration WAIT = Duration.ofSeconds(20);
  @RegisterExtension final BatonClusterExtension baton = BatonClusterExtension.embedded();
  private BatonCluster cluster;
  private EndpointsController endpoints;

  @BeforeEach
  void start() {
    endpoints = new EndpointsController(cluster.client, NS);
  }

  @AfterEach
  void stop() {
    endpoints.close();
  }

  /** A ready pod with an IP and a container port named http, as a kubelet would report it. */
  private void createPod(String name, int ip) {
    Pod pod =
        new PodBuilder(Sandbox.readyPod(NS, name, Map.of("app", "payments")))
            .editSpec()
            .editFirstContainer()
            .addNewPort()
            .withName("http")
            .withContainerPort(8080)
            .withProtocol("TCP")
            .endPort()
            .endContainer()
            .withNodeName("node-1")
            .endSpec()
            .editStatus()
            .withPodIP("10.1.0." + ip)
            .endStatus()
            .build();
    cluster.createPod(pod);
  }

  private void createPods(int n) {
    for (int i = 0; i < n; i++) {
      createPod("payments-" + i, 10 + i);
    }
  }

  private void createLeaderService(String name, Map<String, String> selector) {
    cluster
        .client
        .services()
        .resource(
            new ServiceBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace(NS)
                .endMetadata()
                .withNewSpec()
                .withSelector(selector)
                .addNewPort()
                .withPort(80)
                .endPort()
                .endSpec()
                .build())
        .create();
  }

  private Condition routed() {
    return cluster
        .condition("payments", "Routed")
        .orElseThrow(() -> new AssertionError("no Routed"));
  }

  private List<RouteStatus> routing() {
    List<RouteStatus> r = cluster.status("payments").getRouting();
    return r == null ? List.of() : r;
  }

  private String metrics() throws Exception {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + cluster.operator().httpPort() + "/metrics"))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private long convergences() throws Exception {
    Matcher m =
        Pattern.compile(
                "baton_routing_convergence_seconds_count\\{group=\"payments\",namespace=\"shop\"\\}"
                    + " ([0-9.]+)")
            .matcher(metrics());
    return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
  }

  private void awaitRoutedTo(String leader, String service) {
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

  @Test
  void routingIsReportedAndTimedAfterEveryLeaderChange() throws Exception {
    createPods(3);
    createLeaderService("payments-leader", Map.of("app", "payments", ROLE, "leader"));
    cluster.startOperator();
    cluster.create(Sandbox.group("payments", "payments"));
    String first = cluster.awaitLeader("payments", ROLE);
    awaitRoutedTo(first, "payments-leader");
    assertThat(routed().getReason()).isEqualTo("RoutedToLeader");
    await().atMost(WAIT).until(() -> convergences() >= 1);

    for (int i = 0; i < 3; i++) {
      String old = cluster.awaitLeader("payments", ROLE);
      long before = convergences();
      cluster.deletePod(old);
      await()
          .atMost(WAIT)
          .until(() -> !cluster.leaders(ROLE).isEmpty() && !cluster.leaders(ROLE).contains(old));
      // Recreated only now: a new pod of the same name, created in the same second as the others,
      // may rightly be chosen (oldest first, then by name).
      createPod(old, 20 + i);
      String next = cluster.awaitLeader("payments", ROLE);
      awaitRoutedTo(next, "payments-leader");
      await().atMost(WAIT).until(() -> convergences() > before);
    }
    assertThat(cluster.eventReasons("payments")).doesNotContain("RoutingSlow");
  }

  @Test
  void aStaleEndpointKeepsRoutedFalseWarnsAndClearsWhenTheControllerCatchesUp() {
    createPods(3);
    createLeaderService("payments-leader", Map.of("app", "payments", ROLE, "leader"));
    cluster.startOperator();
    cluster.create(Sandbox.group("payments", "payments"));
    String old = cluster.awaitLeader("payments", ROLE);
    awaitRoutedTo(old, "payments-leader");

    endpoints.pause(true);
    cluster.setReady(old, false);
    await()
        .atMost(WAIT)
        .until(() -> !cluster.leaders(ROLE).isEmpty() && !cluster.leaders(ROLE).contains(old));
    String next = cluster.awaitLeader("payments", ROLE);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(routed().getStatus()).isEqualTo("False");
              assertThat(routed().getReason()).isEqualTo("StaleEndpoint");
              assertThat(routed().getMessage())
                  .contains("payments-leader lists [" + old + "], not the leader " + next);
            });
    // Past the 10 s bound, a Warning names the Service.
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () ->
                assertThat(cluster.events("payments"))
                    .anySatisfy(
                        e -> {
                          assertThat(e.getReason()).isEqualTo("RoutingSlow");
                          assertThat(e.getType()).isEqualTo("Warning");
                          assertThat(e.getMessage()).contains("payments-leader");
                        }));
    assertThat(routed().getStatus()).isEqualTo("False");

    endpoints.pause(false);
    awaitRoutedTo(next, "payments-leader");
    await().atMost(WAIT).until(() -> cluster.eventReasons("payments").contains("RoutingConverged"));
  }

  @Test
  void aServiceWhoseOtherLabelsExcludeTheLeaderIsReported() {
    createPods(2);
    cluster.startOperator();
    cluster.create(Sandbox.group("payments", "payments"));
    cluster.awaitLeader("payments", ROLE);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(routed().getStatus()).isEqualTo("Unknown");
              assertThat(routed().getReason()).isEqualTo("NoLeaderService");
            });

    createLeaderService("payments-web", Map.of("app", "payments", ROLE, "leader", "tier", "web"));
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(routed().getStatus()).isEqualTo("False");
              assertThat(routed().getReason()).isEqualTo("SelectorExcludesLeader");
              assertThat(routed().getMessage()).contains("payments-web", "tier=web");
              assertThat(routing())
                  .singleElement()
                  .satisfies(r -> assertThat(r.getRouted()).isFalse());
            });
  }

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
    createPods(3);
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
      awaitRoutedTo(leader, "payments-primary");

      Service svc = cluster.client.services().inNamespace(NS).withName("payments-primary").get();
      assertThat(svc.getSpec().getSelector()).isNullOrEmpty();
      assertThat(svc.getSpec().getType()).isEqualTo("ClusterIP");
      assertThat(svc.getSpec().getPorts())
          .singleElement()
          .satisfies(
              p -> {
                assertThat(p.getName()).isEqualTo("http");
                assertThat(p.getPort()).isEqualTo(80);
                assertThat(p.getTargetPort().getStrVal()).isEqualTo("http");
              });
      assertThat(svc.getMetadata().getOwnerReferences())
          .singleElement()
          .satisfies(
              o -> {
                assertThat(o.getKind()).isEqualTo("LeaderGroup");
                assertThat(o.getName()).isEqualTo("payments");
                assertThat(o.getController()).isTrue();
              });
      assertThat(KubernetesRules.serviceProblems(svc)).isEmpty();

      for (int i = 0; i < 5; i++) {
        String old = cluster.awaitLeader("payments", ROLE);
        cluster.deletePod(old);
        await()
            .atMost(WAIT)
            .until(() -> !cluster.leaders(ROLE).isEmpty() && !cluster.leaders(ROLE).contains(old));
        createPod(old, 30 + i);
        awaitRoutedTo(cluster.awaitLeader("payments", ROLE), "payments-primary");
      }
      String last = cluster.awaitLeader("payments", ROLE);
      EndpointSlice slice =
          cluster
              .client
              .discovery()
              .v1()
              .endpointSlices()
              .inNamespace(NS)
              .withName("payments-primary-baton")
              .get();
      assertThat(KubernetesRules.endpointSliceProblems(slice)).isEmpty();
      assertThat(slice.getMetadata().getLabels())
          .containsEntry("kubernetes.io/service-name", "payments-primary")
          .containsEntry("endpointslice.kubernetes.io/managed-by", "baton.dev");
      assertThat(slice.getAddressType()).isEqualTo("IPv4");
      assertThat(slice.getPorts())
          .singleElement()
          .satisfies(
              p -> {
                assertThat(p.getName()).isEqualTo("http");
                assertThat(p.getPort()).isEqualTo(8080);
              });
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
      assertThat(
              cluster
                  .client
                  .discovery()
                  .v1()
                  .endpointSlices()
                  .inNamespace(NS)
                  .withName("payments-primary-slice")
                  .get())
          .isNull();

      cluster.client.resources(LeaderGroup.class).inNamespace(NS).withName("payments").delete();
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                assertThat(
                        cluster
                            .client
                            .services()
                            .inNamespace(NS)
                            .withName("payments-primary")
                            .get())
                    .isNull();
                assertThat(
                        cluster
                            .client
                            .discovery()
                            .v1()
                            .endpointSlices()
                            .inNamespace(NS)
                            .withName("payments-primary-baton")
                            .get())
                    .isNull();
              });
    } finally {
      watch.close();
    }
  }

  @Test
  void aServiceNameTakenBySomeoneElseIsLeftAloneAndReported() {
    createPod("payments-0", 10);
    createLeaderService("payments-primary", Map.of("app", "other"));
    cluster.startOperator();
    cluster.create(groupWithService());
    cluster.awaitLeader("payments", ROLE);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(routed().getStatus()).isEqualTo("False");
              assertThat(routed().getReason()).isEqualTo("ServiceProblem");
              assertThat(routed().getMessage()).contains("not owned by this LeaderGroup");
              assertThat(cluster.eventReasons("payments")).contains("ServiceProblem");
            });
    Service svc = cluster.client.services().inNamespace(NS).withName("payments-primary").get();
    assertThat(svc.getSpec().getSelector()).containsEntry("app", "other");
  }

  private static LeaderGroup dampedGroup(String delay) {
    LeaderGroup g = Sandbox.group("payments", "payments");
    g.getSpec().setFailoverDelay(delay);
    return g;
  }

  @Test
  void failoverDelayKeepsANotReadyLeaderForTheDelayThenMoves() {
    createPods(3);
    cluster.startOperator();
    cluster.create(dampedGroup("3s"));
    String leader = cluster.awaitLeader("payments", ROLE);
    long term = cluster.status("payments").getTerm();

    cluster.setReady(leader, false);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              var pending = cluster.status("payments").getPendingFailover();
              assertThat(pending).isNotNull();
              assertThat(pending.getPod()).isEqualTo(leader);
              assertThat(pending.getFailoverAt()).isNotEmpty();
              assertThat(cluster.condition("payments", "Ready").get().getReason())
                  .isEqualTo("FailoverPending");
            });
    assertThat(cluster.events("payments"))
        .anySatisfy(
            e -> {
              assertThat(e.getReason()).isEqualTo("FailoverPending");
              assertThat(e.getMessage()).contains(leader, "spec.failoverDelay");
            });
    // Held: 1.5 s into the 3 s delay the leader and its term are unchanged.
    await()
        .during(Duration.ofMillis(1500))
        .atMost(Duration.ofSeconds(3))
        .untilAsserted(
            () -> {
              assertThat(cluster.leaders(ROLE)).containsExactly(leader);
              assertThat(cluster.status("payments").getTerm()).isEqualTo(term);
            });
    // Then it moves.
    await()
        .atMost(WAIT)
        .until(() -> !cluster.leaders(ROLE).isEmpty() && !cluster.leaders(ROLE).contains(leader));
    cluster.awaitLeader("payments", ROLE);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(cluster.status("payments").getPendingFailover()).isNull();
              assertThat(cluster.status("payments").getTerm()).isGreaterThan(term);
            });
  }

  @Test
  void aLeaderReadyAgainWithinTheDelayStaysLeader() {
    createPods(3);
    cluster.startOperator();
    cluster.create(dampedGroup("30s"));
    String leader = cluster.awaitLeader("payments", ROLE);
    long term = cluster.status("payments").getTerm();
    for (int flap = 0; flap < 3; flap++) {
      cluster.setReady(leader, false);
      await().atMost(WAIT).until(() -> cluster.status("payments").getPendingFailover() != null);
      cluster.setReady(leader, true);
      await().atMost(WAIT).until(() -> cluster.status("payments").getPendingFailover() == null);
    }
    assertThat(cluster.leaders(ROLE)).containsExactly(leader);
    assertThat(cluster.status("payments").getTerm()).isEqualTo(term);
    await().atMost(WAIT).until(() -> cluster.eventReasons("payments").contains("FailoverAverted"));
    assertThat(cluster.condition("payments", "Ready").get().getStatus()).isEqualTo("True");
  }

  @Test
  void deletionMovesLeadershipAtOnceWhateverTheDelay() {
    createPods(3);
    cluster.startOperator();
    cluster.create(dampedGroup("1h"));
    String leader = cluster.awaitLeader("payments", ROLE);
    cluster.deletePod(leader);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> !cluster.leaders(ROLE).isEmpty() && !cluster.leaders(ROLE).contains(leader));
    assertThat(cluster.eventReasons("payments")).doesNotContain("FailoverPending");
    List<Event> deleted =
        cluster.events("payments").stream()
            .filter(e -> e.getReason().equals("LeaderDeleted"))
            .toList();
    assertThat(deleted).isNotEmpty();
  }
}
