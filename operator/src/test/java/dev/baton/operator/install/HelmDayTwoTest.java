package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.operator.config.OperatorConfig;
import dev.baton.operator.metrics.BatonMetrics;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The chart's day-two options: CRDs as templates upgraded with the release and kept on uninstall,
 * extra volumes, mounts and env (a Redis CA from a Secret), `helm test`, the ServiceMonitor's
 * honorLabels, the Grafana dashboard ConfigMap and the PrometheusRule with its runbooks.
 */
class HelmDayTwoTest {

  private static final String README = "README.md";

  private static List<CustomResourceDefinition> crds(List<HasMetadata> objects) {
    return Manifests.ofKind(objects, CustomResourceDefinition.class);
  }

  private static GenericKubernetesResource untyped(List<HasMetadata> objects, String kind) {
    List<GenericKubernetesResource> found =
        Manifests.ofKind(objects, GenericKubernetesResource.class).stream()
            .filter(o -> o.getKind().equals(kind))
            .toList();
    assertThat(found).as("rendered %s", kind).hasSize(1);
    return found.get(0);
  }

  @Test
  void crdsAreTemplatesOfTheReleaseKeptOnUninstallAndEqualToCrdsDirectory() throws IOException {
    List<CustomResourceDefinition> rendered = crds(HelmChart.renderDefaults());

    assertThat(rendered)
        .extracting(c -> c.getMetadata().getName())
        .containsExactlyInAnyOrder("leadergroups.baton.dev", "redislocks.baton.dev");
    for (CustomResourceDefinition crd : rendered) {
      CustomResourceDefinition source =
          Manifests.single(
              Manifests.parse(
                  Files.readString(
                      InstallFiles.CRDS.resolve(crd.getMetadata().getName() + "-v1.yml")),
                  "crds/"),
              CustomResourceDefinition.class);
      assertThat(crd.getSpec())
          .as("%s rendered by the chart is the one in crds/", crd.getMetadata().getName())
          .isEqualTo(source.getSpec());
      assertThat(crd.getMetadata().getAnnotations())
          .as("helm uninstall leaves the CRDs, and every LeaderGroup and RedisLock")
          .containsEntry("helm.sh/resource-policy", "keep");
      assertThat(crd.getMetadata().getLabels())
          .containsEntry("app.kubernetes.io/managed-by", "Helm")
          .containsEntry("app.kubernetes.io/instance", HelmChart.RELEASE);
      assertThat(crd.getMetadata().getNamespace()).as("cluster-scoped").isNull();
    }
  }

  @Test
  void crdsCanBeLeftToUninstallOrOutOfTheRelease() {
    assertThat(crds(HelmChart.render("crds: {keep: false}")))
        .hasSize(2)
        .allSatisfy(c -> assertThat(c.getMetadata().getAnnotations()).isNullOrEmpty());
    assertThat(crds(HelmChart.render("crds: {enabled: false}"))).isEmpty();
  }

  @Test
  void theReadmesRedisCaExampleReachesTheOperatorsCaFileVariable() throws IOException {
    String readme = Files.readString(InstallFiles.CHART.resolve(README));
    Matcher block =
        Pattern.compile(
                "## A `rediss://` Redis with a private CA.*?```yaml\\n(.*?)```", Pattern.DOTALL)
            .matcher(readme);
    assertThat(block.find()).as("the README's rediss:// example").isTrue();

    List<HasMetadata> objects = HelmChart.render(block.group(1));

    PodSpec pod = Manifests.single(objects, Deployment.class).getSpec().getTemplate().getSpec();
    Container operator = pod.getContainers().get(0);
    EnvVar caFile =
        operator.getEnv().stream()
            .filter(e -> e.getName().equals(OperatorConfig.REDIS_CA_FILE))
            .findFirst()
            .orElseThrow();
    VolumeMount mount =
        operator.getVolumeMounts().stream()
            .filter(m -> caFile.getValue().startsWith(m.getMountPath() + "/"))
            .findFirst()
            .orElseThrow(() -> new AssertionError("no mount holds " + caFile.getValue()));
    assertThat(mount.getReadOnly()).isTrue();
    Volume volume =
        pod.getVolumes().stream()
            .filter(v -> v.getName().equals(mount.getName()))
            .findFirst()
            .orElseThrow();
    assertThat(volume.getSecret().getSecretName()).isEqualTo("redis-ca");
    assertThat(caFile.getValue()).endsWith("/ca.crt");
    assertThat(readme).contains("--from-file=ca.crt=");
    assertThat(operator.getVolumeMounts())
        .as("the chart's own /tmp stays")
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/tmp"));
    assertThat(
            operator.getEnv().stream()
                .filter(e -> e.getName().equals("BATON_REDIS_URL"))
                .findFirst()
                .orElseThrow()
                .getValue())
        .startsWith("rediss://");
  }

  @Test
  void helmTestAsksReadyzThroughTheMetricsServiceAsARestrictedPod() throws IOException {
    List<HasMetadata> objects = HelmChart.renderDefaults();
    assertThat(objects)
        .as("a test hook is not installed with the release")
        .noneMatch(o -> o instanceof Pod);
    assertThat(HelmChart.testHookAnnotations("readyz.yaml"))
        .containsExactly(
            "helm.sh/hook: test",
            "helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded");

    Pod test = Manifests.single(HelmChart.renderTests(""), Pod.class);
    assertThat(test.getSpec().getRestartPolicy()).isEqualTo("Never");
    assertThat(test.getSpec().getAutomountServiceAccountToken()).isFalse();
    Service metrics = Manifests.named(objects, Service.class, HelmChart.fullname() + "-metrics");
    Container c = test.getSpec().getContainers().get(0);
    assertThat(c.getImage()).isEqualTo("busybox:1.36");
    assertThat(c.getCommand())
        .contains("wget")
        .last()
        .isEqualTo(
            "http://"
                + metrics.getMetadata().getName()
                + "."
                + HelmChart.NAMESPACE
                + ".svc:"
                + metrics.getSpec().getPorts().get(0).getPort()
                + "/readyz");
    assertThat(test.getSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
    assertThat(c.getSecurityContext().getReadOnlyRootFilesystem()).isTrue();
    assertThat(c.getSecurityContext().getAllowPrivilegeEscalation()).isFalse();
    assertThat(c.getSecurityContext().getCapabilities().getDrop()).containsExactly("ALL");
    assertThat(c.getSecurityContext().getSeccompProfile().getType()).isEqualTo("RuntimeDefault");

    assertThat(Manifests.ofKind(HelmChart.render("helmTest: {enabled: false}"), Pod.class))
        .isEmpty();
    assertThat(
            Manifests.ofKind(HelmChart.render("metrics: {service: {enabled: false}}"), Pod.class))
        .as("no Service to ask through")
        .isEmpty();
  }

  @Test
  void theServiceMonitorKeepsTheMetricsOwnNamespaceLabel() {
    GenericKubernetesResource monitor =
        untyped(HelmChart.render("metrics: {serviceMonitor: {enabled: true}}"), "ServiceMonitor");
    List<Map<String, Object>> endpoints = monitor.get("spec", "endpoints");
    assertThat(endpoints)
        .singleElement()
        .satisfies(e -> assertThat(e).containsEntry("honorLabels", true));
  }

  @Test
  void theDashboardConfigMapCarriesTheExampleDashboard() throws IOException {
    String example = Files.readString(InstallFiles.EXAMPLES.resolve("grafana-dashboard.json"));
    assertThat(InstallFiles.CHART.resolve("files/grafana-dashboard.json"))
        .as(
            "the chart's copy of examples/grafana-dashboard.json; refresh it with"
                + " cp examples/grafana-dashboard.json helm/baton-operator/files/")
        .hasContent(example);
    assertThat(Manifests.ofKind(HelmChart.renderDefaults(), ConfigMap.class)).isEmpty();

    ConfigMap dashboard =
        Manifests.single(
            HelmChart.render(
                """
                grafanaDashboard:
                  enabled: true
                  namespace: monitoring
                  annotations: {grafana_folder: Baton}
                """),
            ConfigMap.class);
    assertThat(dashboard.getMetadata().getNamespace()).isEqualTo("monitoring");
    assertThat(dashboard.getMetadata().getLabels()).containsEntry("grafana_dashboard", "1");
    assertThat(dashboard.getMetadata().getAnnotations()).containsEntry("grafana_folder", "Baton");
    assertThat(dashboard.getData()).containsOnlyKeys("baton-operator.json");
    assertThat(dashboard.getData().get("baton-operator.json").strip()).isEqualTo(example.strip());
  }

  @Test
  void thePrometheusRuleAlertsOnExportedMetricsEachWithARunbook() throws IOException {
    assertThat(HelmChart.renderDefaults()).noneMatch(o -> o.getKind().equals("PrometheusRule"));

    GenericKubernetesResource rule =
        untyped(
            HelmChart.render(
                """
                prometheusRule:
                  enabled: true
                  labels: {release: kube-prometheus-stack}
                  alertLabels: {team: platform}
                  runbookUrl: https://example.com/baton/README.md
                """),
            "PrometheusRule");
    assertThat(rule.getMetadata().getLabels()).containsEntry("release", "kube-prometheus-stack");
    List<Map<String, Object>> groups = rule.get("spec", "groups");
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> rules = (List<Map<String, Object>>) groups.get(0).get("rules");
    Map<String, Map<String, Object>> byName =
        rules.stream().collect(Collectors.toMap(r -> (String) r.get("alert"), r -> r, (a, b) -> a));
    assertThat(byName)
        .containsOnlyKeys(
            "BatonNoLeader",
            "BatonSplitBrainSuspected",
            "BatonRoutingNotConverged",
            "BatonRedisUnavailable",
            "BatonNoActiveOperator",
            "BatonLockHeldByDeadHolder");

    String readme = Files.readString(InstallFiles.CHART.resolve(README));
    Set<String> exported =
        Set.of(
            BatonMetrics.CONDITION,
            BatonMetrics.ACTIVE_REPLICA,
            BatonMetrics.LOCK_DEAD_HOLDER,
            BatonMetrics.LOCK_TTL);
    Set<String> used = new TreeSet<>();
    byName.forEach(
        (name, r) -> {
          String expr = (String) r.get("expr");
          Matcher metric = Pattern.compile("\\bbaton_[a-z_]+").matcher(expr);
          while (metric.find()) {
            used.add(metric.group());
          }
          assertThat(r.get("labels"))
              .asInstanceOf(org.assertj.core.api.InstanceOfAssertFactories.MAP)
              .containsEntry("team", "platform")
              .containsKey("severity");
          Map<String, Object> annotations = castMap(r.get("annotations"));
          assertThat(annotations).containsKeys("summary", "description");
          assertThat(annotations.get("runbook_url"))
              .isEqualTo("https://example.com/baton/README.md#" + name.toLowerCase());
          assertThat(readme).as("a runbook for %s", name).contains("#### " + name + "\n");
          if (name.startsWith("BatonNoActive")) {
            assertThat(expr)
                .contains("namespace=\"" + HelmChart.NAMESPACE + "\"")
                .contains("pod=~\"" + HelmChart.fullname() + "-[a-z0-9]+-[a-z0-9]+\"")
                .as(
                    "whatever scrapes the operator: a ServiceMonitor sets service=, a PodMonitor not")
                .doesNotContain("service=");
          } else if (name.startsWith("BatonLock")) {
            assertThat(String.valueOf(annotations.get("summary"))).contains("{{ $labels.lock }}");
          } else {
            assertThat(String.valueOf(annotations.get("summary")))
                .as("Prometheus fills in the group")
                .contains("{{ $labels.group }}");
          }
        });
    assertThat(used).as("metrics the alerts read").isNotEmpty().isSubsetOf(exported);
    assertThat(byName.get("BatonNoLeader").get("for")).isEqualTo("1m");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> castMap(Object o) {
    return (Map<String, Object>) o;
  }
}
