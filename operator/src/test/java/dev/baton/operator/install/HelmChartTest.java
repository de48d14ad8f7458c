package dev.baton.operator.install;

import static dev.baton.operator.install.RenderedOperatorPod.assertRestrictedSecurity;
import static dev.baton.operator.install.RenderedOperatorPod.assertSecretKey;
import static dev.baton.operator.install.RenderedOperatorPod.env;
import static dev.baton.operator.install.RenderedOperatorPod.onlyContainer;
import static dev.baton.operator.install.RenderedOperatorPod.podLabels;
import static dev.baton.operator.install.RenderedOperatorPod.values;
import static org.assertj.core.api.Assertions.assertThat;

import com.marcnuri.helm.LintResult;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Helm chart lints clean and renders what the operator needs, with the defaults and with every
 * option; HelmValuesTest holds the values' schema and documentation.
 */
class HelmChartTest {

  private static final Path ALL_OPTIONS = InstallFiles.CHART.resolve("ci/all-options-values.yaml");

  @Test
  void lintsCleanInStrictMode() {
    LintResult lint = HelmChart.helm().lint().strict().call();

    assertThat(lint.isFailed()).as("helm lint --strict: %s", lint.getMessages()).isFalse();
    assertThat(lint.getMessages())
        .as("helm lint --strict messages")
        .noneMatch(m -> m.contains("[WARNING]") || m.contains("[ERROR]"));
  }

  @Test
  void rendersTheOperatorWithDefaults() throws IOException {
    List<HasMetadata> objects = HelmChart.renderDefaults();

    assertThat(objects)
        .extracting(HasMetadata::getKind)
        .containsExactlyInAnyOrder(
            "ServiceAccount",
            "ClusterRole",
            "ClusterRole",
            "ClusterRole",
            "ClusterRole",
            "ClusterRoleBinding",
            "ClusterRoleBinding",
            "Role",
            "RoleBinding",
            "Service",
            "Deployment",
            "PodDisruptionBudget",
            "CustomResourceDefinition",
            "CustomResourceDefinition",
            // The agent injection webhook: its configuration and Service, the Role for its CA's
            // Secret and the ClusterRole for the configuration's caBundle.
            "MutatingWebhookConfiguration",
            "Service",
            "Role",
            "RoleBinding",
            "ClusterRole",
            "ClusterRoleBinding");
    assertThat(objects)
        .filteredOn(
            o ->
                !(o instanceof ClusterRole)
                    && !o.getKind().equals("ClusterRoleBinding")
                    && !o.getKind().equals("CustomResourceDefinition")
                    && !o.getKind().equals("MutatingWebhookConfiguration"))
        .allSatisfy(o -> assertThat(o.getMetadata().getNamespace()).isEqualTo(HelmChart.NAMESPACE));

    Deployment deployment = Manifests.single(objects, Deployment.class);
    assertThat(deployment.getMetadata().getName()).isEqualTo(HelmChart.fullname());
    assertThat(deployment.getSpec().getReplicas()).as("one active, one standby").isEqualTo(2);
    assertThat(deployment.getSpec().getSelector().getMatchLabels())
        .containsOnlyKeys("app.kubernetes.io/name", "app.kubernetes.io/instance");
    assertThat(
            Manifests.selects(
                deployment.getSpec().getSelector(),
                deployment.getSpec().getTemplate().getMetadata().getLabels()))
        .isTrue();

    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    ServiceAccount account = Manifests.single(objects, ServiceAccount.class);
    assertThat(pod.getServiceAccountName()).isEqualTo(account.getMetadata().getName());
    assertThat(pod.getAutomountServiceAccountToken()).isTrue();

    Container operator = onlyContainer(pod);
    assertThat(operator.getImage())
        .isEqualTo("ghcr.io/baton-dev/baton-operator:" + chartField("appVersion"));
    assertThat(operator.getImagePullPolicy()).isEqualTo("IfNotPresent");

    Map<String, EnvVar> env = env(operator);
    assertThat(values(env))
        .containsEntry("BATON_REDIS_URL", "redis://redis:6379")
        .containsEntry("BATON_CLUSTER_ID", "default")
        .containsEntry("BATON_HTTP_PORT", "8080")
        .containsEntry("BATON_LEADER_ELECTION", "true")
        .containsEntry("BATON_LEADER_ELECTION_LEASE_NAME", "baton-operator")
        .containsEntry("BATON_LOG_LEVEL", "info")
        .containsEntry("BATON_LOG_FORMAT", "text")
        .doesNotContainKeys(
            "BATON_NAMESPACES",
            "BATON_REDIS_USERNAME",
            "BATON_REDIS_PASSWORD",
            "BATON_JVM_OPTIONS");
    assertThat(
            env.get("BATON_LEADER_ELECTION_NAMESPACE").getValueFrom().getFieldRef().getFieldPath())
        .isEqualTo("metadata.namespace");

    assertThat(operator.getPorts())
        .extracting(p -> p.getName() + ":" + p.getContainerPort())
        .containsExactly("http:8080", "webhook:9443");
    assertThat(operator.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(operator.getLivenessProbe().getHttpGet().getPort())
        .isEqualTo(new IntOrString("http"));
    assertThat(operator.getStartupProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(operator.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(operator.getReadinessProbe().getHttpGet().getPort())
        .isEqualTo(new IntOrString("http"));

    assertThat(operator.getResources().getRequests())
        .containsEntry("cpu", new Quantity("100m"))
        .containsEntry("memory", new Quantity("256Mi"));
    assertThat(operator.getResources().getLimits()).containsEntry("memory", new Quantity("512Mi"));

    assertRestrictedSecurity(pod, operator);
    assertThat(
            pod.getAffinity()
                .getPodAntiAffinity()
                .getPreferredDuringSchedulingIgnoredDuringExecution())
        .as("replicas spread over nodes when possible")
        .singleElement()
        .satisfies(
            t ->
                assertThat(t.getPodAffinityTerm().getTopologyKey())
                    .isEqualTo("kubernetes.io/hostname"));

    Service metrics = Manifests.named(objects, Service.class, HelmChart.fullname() + "-metrics");
    assertThat(metrics.getSpec().getType()).isEqualTo("ClusterIP");
    assertThat(Manifests.selects(metrics.getSpec().getSelector(), podLabels(deployment))).isTrue();
    assertThat(metrics.getSpec().getPorts())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getPort()).isEqualTo(8080);
              assertThat(p.getTargetPort()).isEqualTo(new IntOrString("http"));
            });
  }

  @Test
  void rendersEveryOptionOn() {
    List<HasMetadata> objects = HelmChart.render("", ALL_OPTIONS);

    Deployment deployment = Manifests.single(objects, Deployment.class);
    assertThat(deployment.getMetadata().getName()).isEqualTo("platform-baton");
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(3);
    PodSpec pod = deployment.getSpec().getTemplate().getSpec();
    Container operator = onlyContainer(pod);
    assertThat(operator.getImage())
        .isEqualTo(
            "registry.example.com/platform/baton-operator@sha256:"
                + "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef");
    assertThat(operator.getImagePullPolicy()).isEqualTo("Always");
    assertThat(pod.getImagePullSecrets())
        .extracting(r -> r.getName())
        .containsExactly("registry-example");
    assertThat(pod.getServiceAccountName()).isEqualTo("baton-sa");
    assertThat(pod.getPriorityClassName()).isEqualTo("system-cluster-critical");
    assertThat(pod.getNodeSelector()).containsEntry("kubernetes.io/os", "linux");
    assertThat(pod.getTolerations()).extracting(t -> t.getKey()).containsExactly("dedicated");
    assertThat(pod.getAffinity().getNodeAffinity()).isNotNull();
    assertThat(pod.getAffinity().getPodAntiAffinity()).as("affinity replaces the preset").isNull();
    assertThat(pod.getTopologySpreadConstraints()).hasSize(1);
    assertThat(deployment.getSpec().getTemplate().getMetadata().getAnnotations())
        .containsEntry("example.com/owner", "platform");
    assertThat(podLabels(deployment)).containsEntry("team", "platform");

    Map<String, EnvVar> env = env(operator);
    assertSecretKey(env.get("BATON_REDIS_URL"), "baton-redis", "url", null);
    assertSecretKey(env.get("BATON_REDIS_USERNAME"), "baton-redis", "user", true);
    assertSecretKey(env.get("BATON_REDIS_PASSWORD"), "baton-redis", "pass", true);
    assertThat(values(env))
        .containsEntry("BATON_NAMESPACES", "team-a,team-b")
        .containsEntry("BATON_CLUSTER_ID", "eu-west-1")
        .containsEntry("BATON_HTTP_PORT", "9090")
        .containsEntry("BATON_REDIS_TIMEOUT", "500ms")
        .containsEntry("BATON_LOG_LEVEL", "debug")
        .containsEntry("BATON_LOG_FORMAT", "json")
        .containsEntry("BATON_JVM_OPTIONS", "-XX:MaxRAMPercentage=60.0 -XX:+ExitOnOutOfMemoryError")
        .containsEntry("TZ", "UTC")
        .containsEntry("BATON_REDIS_CA_FILE", "/etc/baton/redis-ca/ca.crt");
    assertThat(operator.getVolumeMounts())
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/etc/baton/redis-ca"));
    assertThat(pod.getVolumes())
        .filteredOn(v -> v.getName().equals("redis-ca"))
        .singleElement()
        .satisfies(v -> assertThat(v.getSecret().getSecretName()).isEqualTo("redis-ca"));
    assertThat(objects)
        .filteredOn(o -> o.getKind().equals("CustomResourceDefinition"))
        .hasSize(2)
        .allSatisfy(c -> assertThat(c.getMetadata().getAnnotations()).isNullOrEmpty());
    assertThat(objects)
        .filteredOn(o -> o.getKind().equals("PrometheusRule"))
        .singleElement()
        .satisfies(
            r ->
                assertThat(r.getMetadata().getLabels())
                    .containsEntry("release", "kube-prometheus-stack"));
    assertThat(objects)
        .filteredOn(o -> o.getKind().equals("ConfigMap"))
        .singleElement()
        .satisfies(c -> assertThat(c.getMetadata().getNamespace()).isEqualTo("monitoring"));
    assertThat(operator.getPorts().get(0).getContainerPort()).isEqualTo(9090);
    assertThat(operator.getLivenessProbe().getFailureThreshold()).isEqualTo(4);
    assertThat(operator.getResources().getLimits()).containsEntry("cpu", new Quantity("1"));
    assertThat(pod.getVolumes())
        .filteredOn(v -> v.getName().equals("tmp"))
        .singleElement()
        .extracting(v -> v.getEmptyDir().getSizeLimit())
        .isEqualTo(new Quantity("128Mi"));
    assertRestrictedSecurity(pod, operator);

    ServiceAccount account = Manifests.single(objects, ServiceAccount.class);
    assertThat(account.getMetadata().getAnnotations()).containsKey("eks.amazonaws.com/role-arn");

    assertThat(Manifests.ofKind(objects, Role.class))
        .as("the watched namespaces' Roles, the Lease's, and none for a CA: cert-manager's")
        .extracting(r -> r.getMetadata().getNamespace())
        .containsExactlyInAnyOrder("team-a", "team-b", HelmChart.NAMESPACE);

    Service metrics = Manifests.named(objects, Service.class, "platform-baton-metrics");
    assertThat(metrics.getMetadata().getAnnotations())
        .containsEntry("prometheus.io/scrape", "false");
    assertThat(metrics.getSpec().getPorts().get(0).getPort()).isEqualTo(9091);

    GenericKubernetesResource monitor =
        Manifests.ofKind(objects, GenericKubernetesResource.class).stream()
            .filter(o -> o.getKind().equals("ServiceMonitor"))
            .findFirst()
            .orElseThrow();
    assertThat(monitor.getApiVersion()).isEqualTo("monitoring.coreos.com/v1");
    assertThat(monitor.getKind()).isEqualTo("ServiceMonitor");
    assertThat(monitor.getMetadata().getLabels()).containsEntry("release", "kube-prometheus-stack");
    Map<String, String> monitorSelects = monitor.get("spec", "selector", "matchLabels");
    assertThat(Manifests.selects(monitorSelects, metrics.getMetadata().getLabels()))
        .as("the ServiceMonitor selects the metrics Service")
        .isTrue();
    List<Map<String, Object>> endpoints = monitor.get("spec", "endpoints");
    assertThat(endpoints)
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e).containsEntry("port", metrics.getSpec().getPorts().get(0).getName());
              assertThat(e).containsEntry("path", "/metrics");
              assertThat(e).containsEntry("interval", "15s");
              assertThat(e).containsEntry("scrapeTimeout", "5s");
              assertThat(e).containsEntry("honorLabels", true);
            });

    PodDisruptionBudget budget = Manifests.single(objects, PodDisruptionBudget.class);
    assertThat(budget.getSpec().getMinAvailable()).isEqualTo(new IntOrString(2));
    assertThat(budget.getSpec().getMaxUnavailable()).as("minAvailable wins").isNull();
    assertThat(Manifests.selects(budget.getSpec().getSelector(), podLabels(deployment))).isTrue();
  }

  @Test
  void rendersWithTheExampleValues() {
    List<HasMetadata> objects =
        HelmChart.render("", InstallFiles.EXAMPLES.resolve("operator-values.yaml"));

    Container operator =
        onlyContainer(
            Manifests.single(objects, Deployment.class).getSpec().getTemplate().getSpec());
    assertSecretKey(env(operator).get("BATON_REDIS_PASSWORD"), "baton-redis", "password", true);
  }

  @Test
  void runsOneReplicaWithoutLeaderElection() {
    List<HasMetadata> objects =
        HelmChart.render(
            """
            replicaCount: 1
            leaderElection:
              enabled: false
            """);

    Deployment deployment = Manifests.single(objects, Deployment.class);
    assertThat(deployment.getSpec().getReplicas()).isEqualTo(1);
    assertThat(values(env(onlyContainer(deployment.getSpec().getTemplate().getSpec()))))
        .containsEntry("BATON_LEADER_ELECTION", "false");
    assertThat(deployment.getSpec().getTemplate().getSpec().getAffinity())
        .as("nothing to spread with one replica")
        .isNull();
    assertThat(Manifests.ofKind(objects, Role.class))
        .as("no Lease, no Role for it: only the webhook CA's")
        .extracting(r -> r.getMetadata().getName())
        .containsExactly(HelmChart.fullname() + "-webhook");
  }

  @Test
  void rendersTheAlternativeShapesOfOptions() {
    List<HasMetadata> objects =
        HelmChart.render(
            """
            podAntiAffinity: hard
            serviceAccount:
              create: false
              name: existing-account
            rbac:
              create: false
            metrics:
              service:
                enabled: false
            podDisruptionBudget:
              enabled: true
              maxUnavailable: 50%
            redis:
              existingSecret: only-password
            crds:
              enabled: false
            webhook:
              enabled: false
            """);

    assertThat(objects)
        .extracting(HasMetadata::getKind)
        .containsExactlyInAnyOrder("Deployment", "PodDisruptionBudget");
    PodSpec pod = Manifests.single(objects, Deployment.class).getSpec().getTemplate().getSpec();
    assertThat(pod.getServiceAccountName()).isEqualTo("existing-account");
    assertThat(
            pod.getAffinity()
                .getPodAntiAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution())
        .singleElement()
        .satisfies(t -> assertThat(t.getTopologyKey()).isEqualTo("kubernetes.io/hostname"));
    Map<String, EnvVar> env = env(onlyContainer(pod));
    assertThat(env.get("BATON_REDIS_URL").getValue()).isEqualTo("redis://redis:6379");
    assertSecretKey(env.get("BATON_REDIS_USERNAME"), "only-password", "username", true);
    assertSecretKey(env.get("BATON_REDIS_PASSWORD"), "only-password", "password", true);
    PodDisruptionBudget budget = Manifests.single(objects, PodDisruptionBudget.class);
    assertThat(budget.getSpec().getMaxUnavailable()).isEqualTo(new IntOrString("50%"));
    assertThat(budget.getSpec().getMinAvailable()).isNull();
  }

  private static String chartField(String field) throws IOException {
    String chart = Files.readString(InstallFiles.CHART.resolve("Chart.yaml"));
    return Manifests.documents(chart, "Chart.yaml").get(0).path(field).asText();
  }
}
