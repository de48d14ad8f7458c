package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.operator.injection.AgentInjector;
import dev.baton.operator.injection.AgentNames;
import dev.baton.operator.injection.AgentPermissions;
import dev.baton.operator.injection.AgentPods;
import dev.baton.operator.testing.RestrictedPodSecurity;
import dev.baton.testkit.PodValidation;
import dev.baton.testkit.ServerJsonPatch;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The injected pod is the reference example's, field for field, except what the label and
 * annotations ask for (which the reference does not carry): the short examples' Deployments, sent
 * to the webhook as the API server sends a ReplicaSet's pod, come back as the long forms in
 * examples/reference/, and the Role, RoleBinding and NetworkPolicy the operator keeps are the
 * reference's too.
 */
class AgentInjectionTest {

  private static final ObjectMapper JSON = Serialization.jsonMapper();

  /** The image the examples name: the operator's own at this version. */
  private static final String IMAGE = "ghcr.io/baton-dev/baton-operator:0.1.0";

  @ParameterizedTest
  @CsvSource({
    "agent-sidecar.yaml, reference/agent-sidecar.yaml",
    "agent-relay.yaml, reference/agent-relay.yaml"
  })
  void theInjectedPodIsTheReferenceExamplesFieldForField(String shortForm, String longForm)
      throws Exception {
    List<HasMetadata> brief = parse(shortForm);
    List<HasMetadata> reference = parse(longForm);
    PodTemplateSpec template = Manifests.single(brief, Deployment.class).getSpec().getTemplate();
    PodTemplateSpec expected =
        Manifests.single(reference, Deployment.class).getSpec().getTemplate();

    JsonNode injected = inject(template, "orders", true);

    PodSpec spec = JSON.treeToValue(injected.path("spec"), PodSpec.class);
    assertThat(Serialization.asYaml(spec))
        .as(shortForm + " injected, against " + longForm)
        .isEqualTo(Serialization.asYaml(expected.getSpec()));
    Map<String, String> labels = new HashMap<>(template.getMetadata().getLabels());
    labels.remove(AgentNames.LABEL);
    assertThat(labels).isEqualTo(expected.getMetadata().getLabels());
    assertThat(template.getMetadata().getAnnotations().keySet())
        .as("the short form's annotations are all the webhook's")
        .isSubsetOf(AgentNames.ANNOTATIONS);
    assertThat(PodValidation.errors(injected)).isEmpty();
    assertThat(RestrictedPodSecurity.violations(spec, false)).isEmpty();
  }

  @ParameterizedTest
  @CsvSource({"reference/agent-sidecar.yaml, false", "reference/agent-relay.yaml, true"})
  void theAgentsPermissionsAndPolicyAreTheReferenceExamples(String longForm, boolean relay)
      throws IOException {
    List<HasMetadata> reference = parse(longForm);
    LeaderGroup group = Serialization.clone(Manifests.single(reference, LeaderGroup.class));
    group.getMetadata().setNamespace("shop");
    group.getMetadata().setUid("3b1a6c2e-0000-4000-8000-000000000001");
    PodTemplateSpec template =
        Manifests.single(reference, Deployment.class).getSpec().getTemplate();
    var pod =
        new PodBuilder()
            .withNewMetadata()
            .withName("orders-0")
            .withNamespace("shop")
            .withLabels(Map.of("app", "orders", AgentNames.LABEL, relay ? "relay" : "gate"))
            .endMetadata()
            .withSpec(template.getSpec())
            .build();
    AgentPods pods = AgentPods.of(List.of(pod), IMAGE);

    Role role = AgentPermissions.role(group);
    Role expectedRole = Manifests.single(reference, Role.class);
    assertThat(role.getMetadata().getName()).isEqualTo(expectedRole.getMetadata().getName());
    assertThat(Serialization.asYaml(role.getRules()))
        .isEqualTo(Serialization.asYaml(expectedRole.getRules()));
    RoleBinding binding = AgentPermissions.binding(group, pods);
    RoleBinding expectedBinding = Manifests.single(reference, RoleBinding.class);
    assertThat(binding.getRoleRef()).isEqualTo(expectedBinding.getRoleRef());
    assertThat(binding.getSubjects())
        .extracting(s -> s.getKind() + "/" + s.getName())
        .containsExactlyElementsOf(
            expectedBinding.getSubjects().stream()
                .map(s -> s.getKind() + "/" + s.getName())
                .toList());
    assertThat(role.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(o -> assertThat(o.getUid()).isEqualTo(group.getMetadata().getUid()));
    if (relay) {
      NetworkPolicy policy = AgentPermissions.policy(group, pods);
      NetworkPolicy expectedPolicy = Manifests.single(reference, NetworkPolicy.class);
      assertThat(policy.getMetadata().getName()).isEqualTo(expectedPolicy.getMetadata().getName());
      assertThat(Serialization.asYaml(policy.getSpec()))
          .isEqualTo(Serialization.asYaml(expectedPolicy.getSpec()));
    } else {
      assertThat(Manifests.ofKind(reference, NetworkPolicy.class)).isEmpty();
    }
  }

  /**
   * Before Kubernetes 1.29 the webhook injects the agent as a plain last container: the reference
   * for such clusters, its agent container and token volume taken out and the opt-in label and app
   * port put in, comes back from the webhook as it is written.
   */
  @Test
  void beforeKubernetes129TheInjectedPodIsTheSecondContainerReferenceFieldForField()
      throws Exception {
    List<HasMetadata> reference = parse("reference/agent-second-container.yaml");
    PodTemplateSpec expected =
        Manifests.single(reference, Deployment.class).getSpec().getTemplate();
    PodTemplateSpec template = Serialization.clone(expected);
    assertThat(template.getSpec().getContainers().removeIf(c -> c.getName().equals("baton-agent")))
        .as("the reference's agent container")
        .isTrue();
    assertThat(
            template.getSpec().getVolumes().removeIf(v -> v.getName().equals("baton-agent-token")))
        .as("the reference's token volume for the agent")
        .isTrue();
    template.getMetadata().getLabels().put(AgentNames.LABEL, AgentNames.GATE);
    template.getMetadata().setAnnotations(Map.of(AgentNames.APP_PORT, "8081"));

    JsonNode injected = inject(template, "orders-legacy", false);

    PodSpec spec = JSON.treeToValue(injected.path("spec"), PodSpec.class);
    assertThat(Serialization.asYaml(spec)).isEqualTo(Serialization.asYaml(expected.getSpec()));
    assertThat(PodValidation.errors(injected)).isEmpty();
    assertThat(RestrictedPodSecurity.violations(spec, false)).isEmpty();
  }

  /**
   * The template as a ReplicaSet's pod of group {@code group}, through the webhook (a native
   * sidecar or a plain last container), patched as the API server does.
   */
  private static JsonNode inject(PodTemplateSpec template, String group, boolean nativeSidecar)
      throws Exception {
    ObjectNode pod = JSON.createObjectNode();
    pod.put("apiVersion", "v1").put("kind", "Pod");
    ObjectNode meta = (ObjectNode) JSON.valueToTree(template.getMetadata());
    meta.put("generateName", "orders-7c9d8b6f5-");
    pod.set("metadata", meta);
    pod.set("spec", JSON.valueToTree(template.getSpec()));
    ObjectNode review = JSON.createObjectNode();
    review.put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
    ObjectNode req = review.putObject("request");
    req.put("uid", "1").put("namespace", "shop").put("operation", "CREATE");
    req.putObject("kind").put("group", "").put("version", "v1").put("kind", "Pod");
    req.set("object", pod);
    AgentInjector injector =
        new AgentInjector(
            (ns, labels) -> Optional.of(new AgentInjector.Group(group, null, null)),
            new AgentInjector.Settings(IMAGE, "baton-redis", nativeSidecar, true));
    JsonNode response = injector.review(review).path("response");
    assertThat(response.path("allowed").asBoolean()).as(response.toString()).isTrue();
    JsonNode ops = JSON.readTree(Base64.getDecoder().decode(response.path("patch").asText()));
    return ServerJsonPatch.apply(pod, ops);
  }

  private static List<HasMetadata> parse(String file) throws IOException {
    return Manifests.parse(Files.readString(InstallFiles.EXAMPLES.resolve(file)), file);
  }
}
