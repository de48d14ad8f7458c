package dev.baton.operator.routing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.LeaderService;
import dev.baton.api.v1alpha1.LeaderServicePort;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What the one-write mode writes, and that a real API server would accept it. */
class LeaderEndpointsTest {

  private static Pod pod(String ip) {
    return new PodBuilder(Sandbox.readyPod("shop", "db-0", Map.of("app", "db")))
        .editMetadata()
        .withUid("u-1")
        .endMetadata()
        .editSpec()
        .withNodeName("node-a")
        .editFirstContainer()
        .addNewPort()
        .withName("pg")
        .withContainerPort(5432)
        .endPort()
        .addNewPort()
        .withName("metrics")
        .withContainerPort(9187)
        .withProtocol("TCP")
        .endPort()
        .endContainer()
        .endSpec()
        .editStatus()
        .withPodIP(ip)
        .endStatus()
        .build();
  }

  private static final LeaderService SPEC =
      new LeaderService(
          "db-primary",
          List.of(
              new LeaderServicePort("pg", 5432, new IntOrString("pg")),
              new LeaderServicePort("metrics", 9000, new IntOrString(9187))));

  private static List<String> problems(LeaderEndpoints.Desired d) {
    return KubernetesRules.endpointSliceProblems(
        new EndpointSliceBuilder()
            .withNewMetadata()
            .withName(LeaderEndpoints.sliceName("db-primary"))
            .addToLabels(LeaderEndpoints.SERVICE_NAME_LABEL, "db-primary")
            .addToLabels(LeaderEndpoints.MANAGED_BY_LABEL, LeaderEndpoints.MANAGED_BY)
            .endMetadata()
            .withAddressType(d.addressType())
            .withEndpoints(d.endpoints())
            .withPorts(d.ports())
            .build());
  }

  @Test
  void anIpv4LeaderIsOneReadyEndpointWithItsPortsResolved() {
    var d = LeaderEndpoints.desiredSlice(SPEC, pod("10.1.2.3"), true);
    assertThat(d.addressType()).isEqualTo("IPv4");
    assertThat(d.endpoints())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getAddresses()).containsExactly("10.1.2.3");
              assertThat(e.getConditions().getReady()).isTrue();
              assertThat(e.getTargetRef().getUid()).isEqualTo("u-1");
              assertThat(e.getNodeName()).isEqualTo("node-a");
            });
    assertThat(d.ports())
        .extracting(p -> p.getName() + ":" + p.getPort())
        .containsExactly("pg:5432", "metrics:9187");
    assertThat(d.problem()).isNull();
    assertThat(problems(d)).isEmpty();
  }

  @Test
  void anIpv6LeaderGetsAnIpv6Slice() {
    var d = LeaderEndpoints.desiredSlice(SPEC, pod("fd00::1:2"), true);
    assertThat(d.addressType()).isEqualTo("IPv6");
    assertThat(problems(d)).isEmpty();
  }

  @Test
  void aNotReadyLeaderIsListedNotReadyAndNobodyMeansNoEndpoint() {
    assertThat(LeaderEndpoints.desiredSlice(SPEC, pod("10.1.2.3"), false).endpoints())
        .singleElement()
        .satisfies(e -> assertThat(e.getConditions().getReady()).isFalse());
    var none = LeaderEndpoints.desiredSlice(SPEC, null, false);
    assertThat(none.endpoints()).isEmpty();
    assertThat(problems(none)).isEmpty();
  }

  @Test
  void aPortNameTheLeaderLacksIsLeftOutAndReported() {
    LeaderService spec =
        new LeaderService(
            "db-primary", List.of(new LeaderServicePort("web", 80, new IntOrString("http"))));
    var d = LeaderEndpoints.desiredSlice(spec, pod("10.1.2.3"), true);
    assertThat(d.ports()).isEmpty();
    assertThat(d.problem()).contains("no container port named http");
  }

  @Test
  void theRulesCatchWhatAServerRefuses() {
    var bad =
        new EndpointSliceBuilder()
            .withNewMetadata()
            .withName("Bad_Name")
            .endMetadata()
            .withAddressType("IPv4")
            .addNewEndpoint()
            .withAddresses("fd00::1")
            .endEndpoint()
            .addNewPort()
            .withName("x")
            .withPort(1)
            .endPort()
            .addNewPort()
            .withName("x")
            .withPort(2)
            .endPort()
            .build();
    assertThat(KubernetesRules.endpointSliceProblems(bad)).hasSize(3);
  }
}
