package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhook;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MutatingWebhookConfiguration;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.Role;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The chart's agent injection webhook: a configuration the API server accepts and that sends it
 * only labeled pods, a Service that reaches the operator's webhook port, and the operator told the
 * names the RBAC grants it (its CA's Secret, the configuration whose caBundle it keeps).
 */
class HelmWebhookTest {

  @Test
  void rendersAWebhookForLabeledPodsOnlyThatTheOperatorServesAndKeeps() {
    List<HasMetadata> objects = HelmChart.renderDefaults();

    MutatingWebhookConfiguration config =
        Manifests.single(objects, MutatingWebhookConfiguration.class);
    MutatingWebhook webhook = config.getWebhooks().get(0);
    assertThat(config.getWebhooks()).hasSize(1);
    assertThat(webhook.getName()).isEqualTo("agent.baton.dev");
    assertThat(webhook.getAdmissionReviewVersions()).containsExactly("v1");
    assertThat(webhook.getSideEffects()).isEqualTo("None");
    assertThat(webhook.getFailurePolicy()).isEqualTo("Ignore");
    assertThat(webhook.getTimeoutSeconds()).isBetween(1, 10);
    assertThat(webhook.getClientConfig().getCaBundle())
        .as("written by the operator, which Helm leaves alone on upgrade")
        .isNull();
    assertThat(webhook.getRules())
        .singleElement()
        .satisfies(
            r -> {
              assertThat(r.getOperations()).containsExactly("CREATE");
              assertThat(r.getResources()).containsExactly("pods");
            });
    assertThat(webhook.getObjectSelector().getMatchExpressions())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getKey()).isEqualTo("baton.dev/agent");
              assertThat(e.getOperator()).isEqualTo("In");
              assertThat(e.getValues()).containsExactly("gate", "relay");
            });
    assertThat(webhook.getNamespaceSelector()).as("every namespace is watched").isNull();

    var ref = webhook.getClientConfig().getService();
    Service service = Manifests.named(objects, Service.class, ref.getName());
    assertThat(ref.getNamespace()).isEqualTo(HelmChart.NAMESPACE);
    assertThat(ref.getPath()).isEqualTo("/mutate-pods");
    assertThat(service.getSpec().getPorts())
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getPort()).isEqualTo(ref.getPort());
              assertThat(p.getTargetPort().getStrVal()).isEqualTo("webhook");
            });
    Deployment deployment = Manifests.single(objects, Deployment.class);
    assertThat(
            Manifests.selects(
                service.getSpec().getSelector(),
                deployment.getSpec().getTemplate().getMetadata().getLabels()))
        .isTrue();
    Container operator = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
    Map<String, String> env = values(operator);
    assertThat(env)
        .containsEntry("BATON_WEBHOOK_ENABLED", "true")
        .containsEntry("BATON_WEBHOOK_SERVICE", ref.getName())
        .containsEntry("BATON_WEBHOOK_CONFIGURATION", config.getMetadata().getName())
        .containsEntry("BATON_AGENT_IMAGE", operator.getImage())
        .containsEntry("BATON_AGENT_REDIS_SECRET", "baton-redis");
    assertThat(operator.getPorts())
        .anySatisfy(
            p -> {
              assertThat(p.getName()).isEqualTo("webhook");
              assertThat(p.getContainerPort())
                  .isEqualTo(Integer.parseInt(env.get("BATON_WEBHOOK_PORT")));
            });
    Role ca = Manifests.named(objects, Role.class, HelmChart.fullname() + "-webhook");
    assertThat(ca.getRules())
        .anySatisfy(
            r ->
                assertThat(r.getResourceNames())
                    .containsExactly(env.get("BATON_WEBHOOK_CA_SECRET")));
    ClusterRole keeper =
        Manifests.ofKind(objects, ClusterRole.class).stream()
            .filter(r -> r.getMetadata().getName().endsWith("-webhook"))
            .findFirst()
            .orElseThrow();
    assertThat(keeper.getRules().get(0).getResourceNames())
        .containsExactly(config.getMetadata().getName());
  }

  @Test
  void watchedNamespacesLimitWhichPodsAreSent() {
    MutatingWebhook webhook =
        Manifests.single(
                HelmChart.render("watchNamespaces: [team-a, team-b]"),
                MutatingWebhookConfiguration.class)
            .getWebhooks()
            .get(0);

    assertThat(webhook.getNamespaceSelector().getMatchExpressions())
        .singleElement()
        .satisfies(
            e -> {
              assertThat(e.getKey()).isEqualTo("kubernetes.io/metadata.name");
              assertThat(e.getValues()).containsExactly("team-a", "team-b");
            });
  }

  @Test
  void turnsInjectionOffWholly() {
    List<HasMetadata> objects = HelmChart.render("webhook: {enabled: false}");

    assertThat(Manifests.ofKind(objects, MutatingWebhookConfiguration.class)).isEmpty();
    assertThat(objects)
        .extracting(o -> o.getMetadata().getName())
        .noneMatch(n -> n.contains("webhook"));
    Container operator =
        Manifests.single(objects, Deployment.class)
            .getSpec()
            .getTemplate()
            .getSpec()
            .getContainers()
            .get(0);
    assertThat(values(operator)).doesNotContainKeys("BATON_WEBHOOK_ENABLED", "BATON_AGENT_IMAGE");
  }

  @Test
  void withCertManagerTheCertificateIsMountedAndTheCaInjected() {
    List<HasMetadata> objects =
        HelmChart.render(
            """
            webhook:
              failurePolicy: Fail
              certManager: {enabled: true}
            """);

    MutatingWebhookConfiguration config =
        Manifests.single(objects, MutatingWebhookConfiguration.class);
    assertThat(config.getWebhooks().get(0).getFailurePolicy()).isEqualTo("Fail");
    String service = HelmChart.fullname() + "-webhook";
    assertThat(config.getMetadata().getAnnotations())
        .containsEntry("cert-manager.io/inject-ca-from", HelmChart.NAMESPACE + "/" + service);
    Map<String, GenericKubernetesResource> byKind =
        objects.stream()
            .filter(o -> o instanceof GenericKubernetesResource)
            .map(GenericKubernetesResource.class::cast)
            .collect(Collectors.toMap(HasMetadata::getKind, o -> o));
    GenericKubernetesResource certificate = byKind.get("Certificate");
    assertThat(certificate.getMetadata().getName()).isEqualTo(service);
    @SuppressWarnings("unchecked")
    Map<String, Object> spec =
        (Map<String, Object>) certificate.getAdditionalProperties().get("spec");
    assertThat(((List<?>) spec.get("dnsNames")).stream().map(Object::toString).toList())
        .contains(service + "." + HelmChart.NAMESPACE + ".svc");
    assertThat(byKind).containsKey("Issuer");
    var pod = Manifests.single(objects, Deployment.class).getSpec().getTemplate().getSpec();
    assertThat(pod.getVolumes())
        .filteredOn(v -> v.getSecret() != null)
        .anySatisfy(
            v -> assertThat(v.getSecret().getSecretName()).isEqualTo(spec.get("secretName")));
    Container operator = pod.getContainers().get(0);
    assertThat(values(operator))
        .containsEntry("BATON_WEBHOOK_CERT_DIR", "/etc/baton/webhook-tls")
        .doesNotContainKeys("BATON_WEBHOOK_CA_SECRET", "BATON_WEBHOOK_CONFIGURATION");
    assertThat(operator.getVolumeMounts())
        .anySatisfy(m -> assertThat(m.getMountPath()).isEqualTo("/etc/baton/webhook-tls"));
  }

  private static Map<String, String> values(Container c) {
    return c.getEnv().stream()
        .filter(e -> e.getValue() != null)
        .collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue, (a, b) -> b));
  }
}
