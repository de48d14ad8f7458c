package dev.baton.operator.injection;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.operator.testing.RestrictedPodSecurity;
import dev.baton.testkit.PodValidation;
import dev.baton.testkit.ServerJsonPatch;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The webhook's answers to AdmissionReviews as kube-apiserver sends them for a pod a ReplicaSet
 * creates: no name yet (generateName), the namespace only in the request, sometimes a dry run. Each
 * patch is applied to the pod as sent, as the server applies it, and the result validated as the
 * server validates a pod.
 */
class AgentInjectorTest {

  private static final ObjectMapper JSON = Serialization.jsonMapper();
  private static final String IMAGE = "ghcr.io/baton-dev/baton-operator:0.2.0";

  private static final AgentInjector.Groups ORDERS =
      (ns, labels) ->
          "shop".equals(ns) && "orders".equals(labels.get("app"))
              ? Optional.of(new AgentInjector.Group("orders", null, null))
              : Optional.empty();

  private static AgentInjector injector(boolean nativeSidecar) {
    return new AgentInjector(
        ORDERS, new AgentInjector.Settings(IMAGE, "baton-redis", nativeSidecar, false));
  }

  /** A pod as the ReplicaSet controller sends it: generateName, no name, no namespace. */
  static ObjectNode pod(String mode, String appPort) {
    ObjectNode pod = JSON.createObjectNode();
    pod.put("apiVersion", "v1").put("kind", "Pod");
    ObjectNode meta = pod.putObject("metadata");
    meta.put("generateName", "orders-5d8f7c9b4-");
    ObjectNode labels = meta.putObject("labels");
    labels.put("app", "orders");
    if (mode != null) {
      labels.put(AgentNames.LABEL, mode);
    }
    if (appPort != null) {
      meta.putObject("annotations").put(AgentNames.APP_PORT, appPort);
    }
    ObjectNode spec = pod.putObject("spec");
    spec.put("automountServiceAccountToken", false);
    ObjectNode app = spec.putArray("containers").addObject();
    app.put("name", "app").put("image", "python:3.12-alpine");
    return pod;
  }

  static ObjectNode review(JsonNode pod, boolean dryRun) {
    ObjectNode review = JSON.createObjectNode();
    review.put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
    ObjectNode req = review.putObject("request");
    req.put("uid", "705ab4f5-6393-11e8-b7cc-42010a800002");
    req.putObject("kind").put("group", "").put("version", "v1").put("kind", "Pod");
    req.putObject("resource").put("group", "").put("version", "v1").put("resource", "pods");
    req.put("namespace", "shop").put("operation", "CREATE").put("dryRun", dryRun);
    req.set("object", pod);
    return review;
  }

  /** The pod after the answer's patch, applied as the API server applies it. */
  static JsonNode patched(JsonNode pod, JsonNode response) throws Exception {
    assertThat(response.path("patchType").asText()).isEqualTo("JSONPatch");
    JsonNode ops = JSON.readTree(Base64.getDecoder().decode(response.path("patch").asText()));
    return ServerJsonPatch.apply(pod, ops);
  }

  @Test
  void injectsANativeSidecarIntoAPodWithoutNameOrInitContainersAsTheServerAppliesIt()
      throws Exception {
    ObjectNode pod = pod("gate", "8081");
    JsonNode answer = injector(true).review(review(pod, false));

    JsonNode response = answer.path("response");
    assertThat(answer.path("apiVersion").asText()).isEqualTo("admission.k8s.io/v1");
    assertThat(response.path("uid").asText()).isEqualTo("705ab4f5-6393-11e8-b7cc-42010a800002");
    assertThat(response.path("allowed").asBoolean()).isTrue();
    JsonNode after = patched(pod, response);
    assertThat(PodValidation.errors(after)).isEmpty();
    Pod typed = Serialization.jsonMapper().treeToValue(after, Pod.class);
    assertThat(typed.getSpec().getInitContainers())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getName()).isEqualTo("baton-agent");
              assertThat(c.getImage()).isEqualTo(IMAGE);
              assertThat(c.getRestartPolicy()).isEqualTo("Always");
              assertThat(c.getEnv())
                  .anySatisfy(
                      e -> {
                        assertThat(e.getName()).isEqualTo("BATON_AGENT_GATE");
                        assertThat(e.getValue()).isEqualTo("8080:127.0.0.1:8081");
                      });
            });
    assertThat(RestrictedPodSecurity.violations(withPodSecurity(typed), false)).isEmpty();
  }

  @Test
  void addsToListsThePodHasWithoutReplacingThem() throws Exception {
    ObjectNode pod = pod("relay", "9000");
    ObjectNode spec = (ObjectNode) pod.path("spec");
    spec.putArray("initContainers").addObject().put("name", "migrate").put("image", "m:1");
    spec.putArray("volumes").addObject().put("name", "data").putObject("emptyDir");

    JsonNode after = patched(pod, injector(true).review(review(pod, false)).path("response"));

    assertThat(PodValidation.errors(after)).isEmpty();
    assertThat(after.path("spec").path("initContainers").get(0).path("name").asText())
        .as("the agent starts before any other init container")
        .isEqualTo("baton-agent");
    assertThat(after.path("spec").path("initContainers").get(1).path("name").asText())
        .isEqualTo("migrate");
    assertThat(after.path("spec").path("volumes")).hasSize(2);
  }

  @Test
  void aDryRunIsAnsweredAsTheRealRequestIs() {
    ObjectNode pod = pod("gate", "8081");
    AgentInjector injector = injector(true);

    assertThat(injector.review(review(pod, true))).isEqualTo(injector.review(review(pod, false)));
  }

  @Test
  void beforeKubernetes129TheAgentIsASecondContainer() throws Exception {
    ObjectNode pod = pod("gate", "8081");
    JsonNode after = patched(pod, injector(false).review(review(pod, false)).path("response"));

    assertThat(PodValidation.errors(after)).isEmpty();
    assertThat(after.path("spec").has("initContainers")).isFalse();
    assertThat(after.path("spec").path("containers").get(1).path("name").asText())
        .isEqualTo("baton-agent");
    assertThat(after.path("spec").path("containers").get(1).has("restartPolicy")).isFalse();
  }

  @Test
  void aPodThatHasTheAgentIsLeftAlone() throws Exception {
    ObjectNode pod = pod("gate", "8081");
    JsonNode once = patched(pod, injector(true).review(review(pod, false)).path("response"));

    JsonNode again = injector(true).review(review(once, false)).path("response");

    assertThat(again.path("allowed").asBoolean()).isTrue();
    assertThat(again.has("patch")).isFalse();
  }

  @Test
  void aPodNoLeaderGroupSelectsIsAdmittedUnchangedWithAWarning() {
    ObjectNode pod = pod("gate", "8081");
    ((ObjectNode) pod.path("metadata").path("labels")).put("app", "billing");

    JsonNode response = injector(true).review(review(pod, false)).path("response");

    assertThat(response.path("allowed").asBoolean()).isTrue();
    assertThat(response.has("patch")).isFalse();
    assertThat(response.path("warnings").get(0).asText())
        .contains("baton.dev/agent")
        .contains("no LeaderGroup in shop selects this pod")
        .hasSizeLessThanOrEqualTo(120);
  }

  @Test
  void refusesAnInvalidAnnotationNamingItAndTheFix() {
    JsonNode response =
        injector(true).review(review(pod("gate", "eighty"), false)).path("response");

    assertThat(response.path("allowed").asBoolean()).isFalse();
    assertThat(response.path("status").path("code").asInt()).isEqualTo(400);
    assertThat(response.path("status").path("message").asText())
        .contains("baton.dev/app-port")
        .contains("'eighty' is not a port")
        .contains("1 to 65535");
  }

  @Test
  void refusesAPodWithoutTheAppPort() {
    JsonNode response = injector(true).review(review(pod("gate", null), false)).path("response");

    assertThat(response.path("allowed").asBoolean()).isFalse();
    assertThat(response.path("status").path("message").asText())
        .contains("baton.dev/app-port is required");
  }

  @Test
  void refusesAPortClashNamingTheAnnotationToChange() {
    ObjectNode pod = pod("gate", "8081");
    ((ObjectNode) pod.path("spec").path("containers").get(0))
        .putArray("ports")
        .addObject()
        .put("name", "http")
        .put("containerPort", 8080);

    JsonNode response = injector(true).review(review(pod, false)).path("response");

    assertThat(response.path("allowed").asBoolean()).isFalse();
    assertThat(response.path("status").path("message").asText())
        .contains("baton.dev/gate-port: port 8080 is already container app's port")
        .contains("set baton.dev/gate-port to a free port");
  }

  @Test
  void refusesAGatePortEqualToTheAppPort() {
    JsonNode response = injector(true).review(review(pod("gate", "8080"), false)).path("response");

    assertThat(response.path("status").path("message").asText())
        .contains("baton.dev/gate-port and baton.dev/app-port are both 8080");
  }

  @Test
  void annotationsOverrideWhatUsersChange() throws Exception {
    ObjectNode pod = pod("relay", "8081");
    ObjectNode annotations = (ObjectNode) pod.path("metadata").path("annotations");
    annotations.put(AgentNames.HEALTH_PORT, "9090");
    annotations.put(AgentNames.CONFIRM_WITHIN, "3s");
    annotations.put(AgentNames.MEMORY_LIMIT, "256Mi");
    annotations.put(AgentNames.CPU_REQUEST, "50m");

    JsonNode agent =
        patched(pod, injector(true).review(review(pod, false)).path("response"))
            .path("spec")
            .path("initContainers")
            .get(0);

    assertThat(agent.path("resources").path("limits").path("memory").asText()).isEqualTo("256Mi");
    assertThat(agent.path("resources").path("requests").path("cpu").asText()).isEqualTo("50m");
    assertThat(env(agent))
        .contains("BATON_AGENT_HEALTH_LISTEN=:9090")
        .contains("BATON_AGENT_CONFIRM_WITHIN=3s")
        .contains("BATON_AGENT_RELAY=8080:8082");
    assertThat(agent.path("ports").findValuesAsText("containerPort"))
        .containsExactly("8080", "8082", "9090");
  }

  @Test
  void aGroupsRoleLabelAndRedisSecretReachTheAgent() throws Exception {
    AgentInjector injector =
        new AgentInjector(
            (ns, labels) ->
                Optional.of(
                    new AgentInjector.Group("orders", "db.example.com/role", "orders-redis")),
            new AgentInjector.Settings(IMAGE, "baton-redis", true, false));
    ObjectNode pod = pod("gate", "8081");

    JsonNode agent =
        patched(pod, injector.review(review(pod, false)).path("response"))
            .path("spec")
            .path("initContainers")
            .get(0);

    assertThat(env(agent)).contains("BATON_AGENT_ROLE_LABEL=db.example.com/role");
    assertThat(agent.toString()).contains("orders-redis").doesNotContain("baton-redis");
  }

  /**
   * With per-group Redis users the agent logs in as its group's user, never with the group's
   * spec.redis Secret nor the default one (both hold a user that reaches other groups' keys), and
   * relay needs no default Secret; without them, the agent takes what it took before. With them a
   * relay signs its preambles with the group's own relay secret, from the same Secret.
   */
  @ParameterizedTest
  @CsvSource(
      nullValues = "-",
      value = {
        "orders-redis, baton-redis, true, baton-redis-orders",
        "-, baton-redis, true, baton-redis-orders",
        "-, -, true, baton-redis-orders",
        "orders-redis, baton-redis, false, orders-redis",
        "-, baton-redis, false, baton-redis"
      })
  void theAgentsRedisSecretIsItsGroupsOwnWithGroupRedisUsers(
      String groupSecret, String defaultSecret, boolean groupRedisUsers, String expected)
      throws Exception {
    AgentInjector injector =
        new AgentInjector(
            (ns, labels) -> Optional.of(new AgentInjector.Group("orders", null, groupSecret)),
            new AgentInjector.Settings(IMAGE, defaultSecret, true, groupRedisUsers));
    ObjectNode pod = pod("relay", "8081");

    JsonNode response = injector.review(review(pod, false)).path("response");
    assertThat(response.path("allowed").asBoolean()).as(response.toString()).isTrue();
    JsonNode agent = patched(pod, response).path("spec").path("initContainers").get(0);

    List<String> wanted = new java.util.ArrayList<>();
    if (groupRedisUsers) {
      wanted.add("BATON_AGENT_RELAY_SECRET=baton-redis-orders/relay-secret");
    }
    wanted.add("BATON_REDIS_URL=" + expected + "/url");
    wanted.add("BATON_REDIS_USERNAME=" + expected + "/username");
    wanted.add("BATON_REDIS_PASSWORD=" + expected + "/password");
    wanted.add("BATON_REDIS_SENTINEL_USERNAME=" + expected + "/sentinelUsername");
    wanted.add("BATON_REDIS_SENTINEL_PASSWORD=" + expected + "/sentinelPassword");
    wanted.add("BATON_REDIS_CA=" + expected + "/ca.crt");
    assertThat(secretRefs(agent)).containsExactlyElementsOf(wanted);
  }

  @Test
  void answersOtherRequestsWithoutLookingAtThem() {
    ObjectNode review = review(pod("gate", "8081"), false);
    ((ObjectNode) review.path("request")).put("operation", "UPDATE");

    JsonNode response = injector(true).review(review).path("response");

    assertThat(response.path("allowed").asBoolean()).isTrue();
    assertThat(response.has("patch")).isFalse();
  }

  /** Each variable taken from a Secret, as NAME=secret/key. */
  private static List<String> secretRefs(JsonNode container) {
    return container.path("env").findParents("name").stream()
        .filter(e -> e.path("valueFrom").has("secretKeyRef"))
        .map(
            e -> {
              JsonNode ref = e.path("valueFrom").path("secretKeyRef");
              return e.path("name").asText()
                  + "="
                  + ref.path("name").asText()
                  + "/"
                  + ref.path("key").asText();
            })
        .toList();
  }

  private static List<String> env(JsonNode container) {
    return container.path("env").findParents("name").stream()
        .filter(e -> e.has("value"))
        .map(e -> e.path("name").asText() + "=" + e.path("value").asText())
        .toList();
  }

  /** The pod's own part of the restricted level, which the webhook leaves to the pod's author. */
  private static io.fabric8.kubernetes.api.model.PodSpec withPodSecurity(Pod pod) {
    var spec = pod.getSpec();
    spec.setSecurityContext(
        new io.fabric8.kubernetes.api.model.PodSecurityContextBuilder()
            .withRunAsNonRoot(true)
            .withNewSeccompProfile()
            .withType("RuntimeDefault")
            .endSeccompProfile()
            .build());
    spec.getContainers()
        .forEach(
            c ->
                c.setSecurityContext(
                    new io.fabric8.kubernetes.api.model.SecurityContextBuilder()
                        .withAllowPrivilegeEscalation(false)
                        .withNewCapabilities()
                        .withDrop("ALL")
                        .endCapabilities()
                        .build()));
    return spec;
  }

  static String decode(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
  }
}
