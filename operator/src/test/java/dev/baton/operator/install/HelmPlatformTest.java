package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyEgressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPort;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * What the chart offers a platform team beyond the operator itself: a disruption budget by default,
 * PodMonitors for the operator and the agents, a Lease name of its own, an optional NetworkPolicy,
 * and the metadata Artifact Hub shows.
 */
class HelmPlatformTest {

  private static Deployment deployment(List<HasMetadata> objects) {
    return Manifests.single(objects, Deployment.class);
  }

  private static Map<String, String> podLabels(List<HasMetadata> objects) {
    return deployment(objects).getSpec().getTemplate().getMetadata().getLabels();
  }

  private static List<GenericKubernetesResource> podMonitors(List<HasMetadata> objects) {
    return Manifests.ofKind(objects, GenericKubernetesResource.class).stream()
        .filter(o -> o.getKind().equals("PodMonitor"))
        .toList();
  }

  @Test
  void aDisruptionBudgetKeepsAStandbyByDefaultAndIsLeftOutWithOneReplica() {
    List<HasMetadata> defaults = HelmChart.renderDefaults();
    PodDisruptionBudget budget = Manifests.single(defaults, PodDisruptionBudget.class);
    assertThat(budget.getSpec().getMaxUnavailable()).isEqualTo(new IntOrString(1));
    assertThat(Manifests.selects(budget.getSpec().getSelector(), podLabels(defaults))).isTrue();

    assertThat(
            HelmChart.render(
                """
                replicaCount: 1
                leaderElection: {enabled: false}
                """))
        .as("one replica: a budget would only block drains")
        .noneMatch(o -> o instanceof PodDisruptionBudget);
    assertThat(HelmChart.render("podDisruptionBudget: {enabled: false}"))
        .noneMatch(o -> o instanceof PodDisruptionBudget);
  }

  @Test
  void aPodMonitorScrapesTheOperatorPortsWhenAsked() {
    assertThat(podMonitors(HelmChart.renderDefaults())).isEmpty();

    List<HasMetadata> objects =
        HelmChart.render(
            """
            monitoring:
              podMonitor:
                enabled: true
                labels: {release: kube-prometheus-stack}
                relabelings: [{targetLabel: cluster, replacement: eu-1}]
                metricRelabelings: [{sourceLabels: [__name__], regex: jvm_.*, action: drop}]
            """);
    GenericKubernetesResource monitor = podMonitors(objects).get(0);
    assertThat(podMonitors(objects)).hasSize(1);
    assertThat(monitor.getMetadata().getLabels()).containsEntry("release", "kube-prometheus-stack");
    Map<String, String> selects = monitor.get("spec", "selector", "matchLabels");
    assertThat(Manifests.selects(selects, podLabels(objects))).isTrue();
    List<Map<String, Object>> endpoints = monitor.get("spec", "podMetricsEndpoints");
    Container operator =
        deployment(objects).getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(endpoints)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(operator.getPorts())
                  .extracting(ContainerPort::getName)
                  .as("the container names the port the PodMonitor scrapes")
                  .contains((String) e.get("port"));
              assertThat(e).containsEntry("path", "/metrics").containsEntry("honorLabels", true);
              assertThat(e.get("relabelings").toString()).contains("cluster");
              assertThat(e.get("metricRelabelings").toString()).contains("drop");
            });
  }

  @Test
  void theAgentPodMonitorFindsTheExamplesAgentsByTheirPortName() throws IOException {
    GenericKubernetesResource monitor =
        podMonitors(HelmChart.render("monitoring: {agentPodMonitor: {enabled: true}}")).get(0);
    assertThat(monitor.getMetadata().getName()).isEqualTo(HelmChart.fullname() + "-agents");
    Map<String, Object> namespaces = monitor.get("spec", "namespaceSelector");
    assertThat(namespaces).containsEntry("any", true);
    List<Map<String, Object>> expressions = monitor.get("spec", "selector", "matchExpressions");
    assertThat(expressions)
        .singleElement()
        .satisfies(
            e ->
                assertThat(e)
                    .containsEntry("key", "baton.dev/role")
                    .containsEntry("operator", "Exists"));
    List<Map<String, Object>> endpoints = monitor.get("spec", "podMetricsEndpoints");
    String port = (String) endpoints.get(0).get("port");

    for (String example :
        List.of(
            "reference/agent-sidecar.yaml",
            "reference/agent-relay.yaml",
            "reference/agent-second-container.yaml")) {
      List<Container> agents =
          ExampleChecks.workloads(
                  Manifests.parse(
                      Files.readString(InstallFiles.EXAMPLES.resolve(example)), example))
              .values()
              .stream()
              .flatMap(
                  t ->
                      Stream.concat(
                          t.getSpec().getContainers().stream(),
                          t.getSpec().getInitContainers().stream()))
              .filter(c -> c.getName().equals("baton-agent"))
              .toList();
      assertThat(agents).as(example).isNotEmpty();
      for (Container agent : agents) {
        String listen =
            agent.getEnv().stream()
                .filter(e -> e.getName().equals("BATON_AGENT_HEALTH_LISTEN"))
                .map(EnvVar::getValue)
                .findFirst()
                .orElseThrow();
        assertThat(agent.getPorts())
            .as("%s: the agent's /metrics port is named %s", example, port)
            .anySatisfy(
                p -> {
                  assertThat(p.getName()).isEqualTo(port);
                  assertThat(listen).endsWith(":" + p.getContainerPort());
                });
      }
    }
  }

  @Test
  void theLeaseNameReachesTheOperatorAndItsRole() {
    List<HasMetadata> objects = HelmChart.render("leaderElection: {leaseName: baton-team-a}");

    Container operator =
        deployment(objects).getSpec().getTemplate().getSpec().getContainers().get(0);
    assertThat(operator.getEnv())
        .filteredOn(e -> e.getName().equals("BATON_LEADER_ELECTION_LEASE_NAME"))
        .singleElement()
        .extracting(EnvVar::getValue)
        .isEqualTo("baton-team-a");
    Role election = Manifests.named(objects, Role.class, HelmChart.fullname() + "-leader-election");
    assertThat(election.getRules())
        .filteredOn(r -> r.getResourceNames() != null && !r.getResourceNames().isEmpty())
        .singleElement()
        .satisfies(r -> assertThat(r.getResourceNames()).containsExactly("baton-team-a"));
  }

  @Test
  void theNetworkPolicyIsOffByDefaultAndOpensOnlyWhatTheOperatorUses() {
    assertThat(HelmChart.renderDefaults()).noneMatch(o -> o instanceof NetworkPolicy);

    List<HasMetadata> objects =
        HelmChart.render(
            """
            networkPolicy:
              enabled: true
              redis:
                to: [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: redis}}}]
            """);
    NetworkPolicy policy = Manifests.single(objects, NetworkPolicy.class);
    assertThat(Manifests.selects(policy.getSpec().getPodSelector(), podLabels(objects))).isTrue();
    assertThat(policy.getSpec().getPolicyTypes()).containsExactly("Ingress", "Egress");
    assertThat(policy.getSpec().getIngress())
        .as("the metrics port, and the webhook's (on by default) from anywhere")
        .satisfiesExactly(
            r ->
                assertThat(r.getPorts())
                    .extracting(NetworkPolicyPort::getPort)
                    .containsExactly(new IntOrString(8080)),
            r -> {
              assertThat(r.getPorts())
                  .extracting(NetworkPolicyPort::getPort)
                  .containsExactly(new IntOrString(9443));
              assertThat(r.getFrom()).isNullOrEmpty();
            });
    assertThat(
            Manifests.single(
                    HelmChart.render(
                        "networkPolicy: {enabled: true}\nwebhook: {enabled: false, port: 9555}"),
                    NetworkPolicy.class)
                .getSpec()
                .getIngress())
        .as("no webhook, no port for it")
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.getPorts())
                    .extracting(NetworkPolicyPort::getPort)
                    .containsExactly(new IntOrString(8080)));
    assertThat(
            Manifests.single(
                    HelmChart.render("networkPolicy: {enabled: true}\nwebhook: {port: 9555}"),
                    NetworkPolicy.class)
                .getSpec()
                .getIngress()
                .get(1)
                .getPorts())
        .as("the container's webhook port, whatever it is set to")
        .extracting(NetworkPolicyPort::getPort)
        .containsExactly(new IntOrString(9555));
    Map<Set<Integer>, NetworkPolicyEgressRule> egress =
        policy.getSpec().getEgress().stream()
            .collect(
                Collectors.toMap(
                    r ->
                        r.getPorts().stream()
                            .map(p -> p.getPort().getIntVal())
                            .collect(Collectors.toSet()),
                    r -> r));
    assertThat(egress).containsOnlyKeys(Set.of(443, 6443), Set.of(53), Set.of(6379, 26379));
    assertThat(egress.get(Set.of(443, 6443)).getTo()).as("any API server address").isNullOrEmpty();
    assertThat(egress.get(Set.of(6379, 26379)).getTo())
        .singleElement()
        .satisfies(
            p ->
                assertThat(p.getNamespaceSelector().getMatchLabels())
                    .containsEntry("kubernetes.io/metadata.name", "redis"));
  }

  @Test
  void chartMetadataNamesWhatArtifactHubShows() throws IOException {
    JsonNode chart =
        Manifests.documents(
                Files.readString(InstallFiles.CHART.resolve("Chart.yaml")), "Chart.yaml")
            .get(0);
    assertThat(chart.path("home").asText()).startsWith("https://");
    assertThat(chart.path("sources").get(0).asText()).startsWith("https://");
    assertThat(chart.path("icon").asText()).startsWith("https://").endsWith(".svg");
    assertThat(InstallFiles.ROOT.resolve("docs/images/baton-icon.svg"))
        .as("the icon the URL points at is in the repository")
        .exists();
    JsonNode annotations = chart.path("annotations");
    List<JsonNode> crds =
        Manifests.documents(annotations.path("artifacthub.io/crds").asText(), "crds annotation");
    Set<String> names = Set.of("leadergroups.baton.dev", "redislocks.baton.dev");
    assertThat(crds)
        .extracting(n -> n.path("name").asText())
        .containsExactlyInAnyOrderElementsOf(names);
    List<JsonNode> examples =
        Manifests.documents(
            annotations.path("artifacthub.io/crdsExamples").asText(), "crdsExamples annotation");
    assertThat(examples)
        .extracting(n -> n.path("kind").asText())
        .containsExactly("LeaderGroup", "RedisLock");
    assertThat(annotations.path("artifacthub.io/license").asText()).isEqualTo("Apache-2.0");
    assertThat(annotations.path("artifacthub.io/changes").asText()).isNotBlank();

    String version = chart.path("version").asText();
    assertThat(Files.readString(InstallFiles.CHART.resolve("README.md")))
        .as("the chart README's upgrade notes name the chart version")
        .contains("### To " + version);
  }
}
