package dev.baton.operator.injection;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.client.BatonNames;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the API server's AdmissionReview (admission.k8s.io/v1) for a pod being created: the agent
 * added by a JSON patch, the pod admitted unchanged (already injected, or no LeaderGroup selects
 * it: with a warning), or refused with a message that names the annotation to fix. No side effects:
 * a dry run is answered the same way (the webhook is registered with sideEffects: None).
 */
public final class AgentInjector {

  private static final Logger log = LoggerFactory.getLogger(AgentInjector.class);
  private static final ObjectMapper JSON = Serialization.jsonMapper();

  /**
   * The LeaderGroup a pod would join, as the operator's cache holds it.
   *
   * @param roleLabel the group's spec.roleLabel, or null for the default
   * @param redisSecret the group's spec.redis Secret, or null when it uses the default Redis
   */
  public record Group(String name, String roleLabel, String redisSecret) {

    public static Group of(LeaderGroup g) {
      var spec = g.getSpec();
      return new Group(
          g.getMetadata().getName(),
          spec.getRoleLabel() == null
                  || LeaderGroupSpec.DEFAULT_ROLE_LABEL.equals(spec.getRoleLabel())
              ? null
              : spec.getRoleLabel(),
          spec.getRedis() == null || spec.getRedis().getSecretRef() == null
              ? null
              : spec.getRedis().getSecretRef().getName());
    }
  }

  /** Finds the group that would own a pod with these labels in this namespace. */
  @FunctionalInterface
  public interface Groups {
    Optional<Group> selecting(String namespace, Map<String, String> labels);
  }

  /**
   * @param image the agent's image: the operator's own
   * @param defaultRedisSecret the Secret, in each app namespace, for groups on the operator's
   *     default Redis; null: such agents run without Redis
   * @param nativeSidecar inject an init container with restartPolicy Always (1.29+)
   * @param groupRedisUsers the operator gives every group a Redis user of its own: the agent logs
   *     in as its group's user, from Secret baton-redis-&lt;group&gt;, whatever the group's Redis
   */
  public record Settings(
      String image, String defaultRedisSecret, boolean nativeSidecar, boolean groupRedisUsers) {}

  private final Groups groups;
  private final Settings settings;

  public AgentInjector(Groups groups, Settings settings) {
    this.groups = groups;
    this.settings = settings;
  }

  /** The AdmissionReview to answer with. */
  public ObjectNode review(JsonNode review) {
    JsonNode request = review.path("request");
    ObjectNode response = JSON.createObjectNode();
    response.put("uid", request.path("uid").asText());
    ObjectNode out = JSON.createObjectNode();
    out.put("apiVersion", "admission.k8s.io/v1").put("kind", "AdmissionReview");
    out.set("response", response);
    JsonNode pod = request.path("object");
    if (!"Pod".equals(request.path("kind").path("kind").asText())
        || !"CREATE".equals(request.path("operation").asText())
        || !pod.isObject()) {
      response.put("allowed", true);
      return out;
    }
    String namespace =
        request.path("namespace").asText(pod.path("metadata").path("namespace").asText());
    decide(pod, namespace, response);
    return out;
  }

  private void decide(JsonNode pod, String namespace, ObjectNode response) {
    response.put("allowed", true);
    if (PodPatch.hasAgent(pod)) {
      return;
    }
    Map<String, String> labels = strings(pod.path("metadata").path("labels"));
    String what = describe(pod, namespace);
    AgentOptions options;
    try {
      options = AgentOptions.read(labels, strings(pod.path("metadata").path("annotations")));
    } catch (AgentOptions.Refused e) {
      refuse(response, what, e.getMessage());
      return;
    }
    Optional<Group> group = groups.selecting(namespace, labels);
    if (group.isEmpty()) {
      response
          .putArray("warnings")
          .add(
              AgentNames.LABEL
                  + ": no LeaderGroup in "
                  + namespace
                  + " selects this pod; the agent was not injected");
      log.info("Admitted {} without the agent: no LeaderGroup selects it", what);
      return;
    }
    String clash = PodPatch.clash(pod, options);
    if (clash != null) {
      refuse(response, what, clash);
      return;
    }
    String redis = redisSecret(group.get());
    if (redis == null && options.relay()) {
      refuse(
          response,
          what,
          AgentNames.LABEL
              + ": relay needs Redis, and LeaderGroup "
              + group.get().name()
              + " names no spec.redis while the operator gives agents none; name a Secret in"
              + " spec.redis, or use "
              + AgentNames.LABEL
              + ": gate");
      return;
    }
    inject(pod, options, group.get(), redis, response);
    log.debug(
        "Injected the agent ({}) into {} of LeaderGroup {}",
        options.mode(),
        what,
        group.get().name());
  }

  /**
   * The Secret the agent logs in to Redis with. With per-group users never the group's spec.redis
   * nor the default one, which hold a user that reaches other groups' keys: until the operator has
   * written the group's Secret, the kubelet holds the agent back (the url key is not optional).
   */
  private String redisSecret(Group group) {
    if (settings.groupRedisUsers()) {
      return BatonNames.redisUserSecret(group.name());
    }
    return group.redisSecret() != null ? group.redisSecret() : settings.defaultRedisSecret();
  }

  /** The JSON patch that adds the agent, in the response. */
  private void inject(
      JsonNode pod, AgentOptions options, Group group, String redis, ObjectNode response) {
    AgentSidecar.Target target =
        new AgentSidecar.Target(
            settings.image(),
            group.roleLabel(),
            redis,
            // Only the group's own Secret holds a key that is the group's alone.
            settings.groupRedisUsers() ? BatonNames.redisUserSecret(group.name()) : null,
            settings.nativeSidecar());
    var ops =
        PodPatch.of(
            pod,
            AgentSidecar.container(options, target),
            AgentSidecar.tokenVolume(),
            settings.nativeSidecar());
    response.put("patchType", "JSONPatch");
    response.put(
        "patch",
        Base64.getEncoder().encodeToString(ops.toString().getBytes(StandardCharsets.UTF_8)));
  }

  private static void refuse(ObjectNode response, String what, String why) {
    log.info("Refused {}: {}", what, why);
    response.put("allowed", false);
    ObjectNode status = response.putObject("status");
    status.put("code", 400).put("reason", "BadRequest").put("message", "baton: " + why);
  }

  /** The pod's name, or its generateName while the API server has not made one up yet. */
  private static String describe(JsonNode pod, String namespace) {
    JsonNode meta = pod.path("metadata");
    String name =
        meta.hasNonNull("name") && !meta.path("name").asText().isEmpty()
            ? meta.path("name").asText()
            : meta.path("generateName").asText() + "*";
    return "pod " + namespace + "/" + name;
  }

  private static Map<String, String> strings(JsonNode map) {
    Map<String, String> out = new LinkedHashMap<>();
    map.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
    return out;
  }
}
