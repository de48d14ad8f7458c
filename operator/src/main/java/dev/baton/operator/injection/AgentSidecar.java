package dev.baton.operator.injection;

import dev.baton.operator.lease.RedisSecrets;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarBuilder;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirementsBuilder;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The agent container and its token volume, as the webhook injects them and as {@code
 * examples/reference/agent-relay.yaml} writes them out by hand (a test compares the two field for
 * field).
 */
public final class AgentSidecar {

  /** The image's agent entrypoint: a small JVM and the image's class archive. */
  static final List<String> COMMAND = List.of("/app/baton-agent");

  public static final String GATE_PORT_NAME = "baton-gate";
  public static final String LEADER_ONLY_PORT_NAME = "baton-leader";
  public static final String PROBES_PORT_NAME = "baton-probes";

  /**
   * Where the injected agent comes from and what it connects to.
   *
   * @param image the operator's own image: the agent ships in it
   * @param roleLabel the group's spec.roleLabel, or null for the default
   * @param redisSecret the Secret (keys url, username, password) in the pod's namespace, or null
   * @param nativeSidecar an init container with restartPolicy Always (Kubernetes 1.29+), else a
   *     plain container
   */
  /**
   * @param relaySecret the Secret whose {@code relay-secret} the agents of the group sign their
   *     relays with (the group's own Redis user's Secret); null: unsigned relays
   */
  public record Target(
      String image,
      String roleLabel,
      String redisSecret,
      String relaySecret,
      boolean nativeSidecar) {}

  private AgentSidecar() {}

  public static Container container(AgentOptions o, Target t) {
    ContainerBuilder c =
        new ContainerBuilder()
            .withName(AgentNames.CONTAINER)
            .withImage(t.image())
            .withCommand(COMMAND)
            .withEnv(env(o, t))
            .addNewPort()
            .withName(GATE_PORT_NAME)
            .withContainerPort(o.gatePort())
            .endPort();
    if (o.relay()) {
      c.addNewPort()
          .withName(LEADER_ONLY_PORT_NAME)
          .withContainerPort(o.leaderOnlyPort())
          .endPort();
    }
    c.addNewPort()
        .withName(PROBES_PORT_NAME)
        .withContainerPort(o.healthPort())
        .endPort()
        .withNewSecurityContext()
        .withRunAsNonRoot(true)
        .withRunAsUser(AgentNames.IMAGE_USER)
        .withAllowPrivilegeEscalation(false)
        .withReadOnlyRootFilesystem(true)
        .withNewCapabilities()
        .withDrop("ALL")
        .endCapabilities()
        .withNewSeccompProfile()
        .withType("RuntimeDefault")
        .endSeccompProfile()
        .endSecurityContext()
        .withNewReadinessProbe()
        .withNewHttpGet()
        .withPath("/readyz")
        .withPort(new IntOrString(PROBES_PORT_NAME))
        .endHttpGet()
        .withPeriodSeconds(2)
        .withFailureThreshold(2)
        .endReadinessProbe()
        .withResources(resources(o))
        .addNewVolumeMount()
        .withName(AgentNames.TOKEN_VOLUME)
        .withMountPath(AgentNames.TOKEN_PATH)
        .withReadOnly(true)
        .endVolumeMount();
    if (t.nativeSidecar()) {
      c.withRestartPolicy("Always");
    }
    return c.build();
  }

  private static List<EnvVar> env(AgentOptions o, Target t) {
    List<EnvVar> env = new ArrayList<>();
    env.add(fieldRef("POD_NAMESPACE", "metadata.namespace"));
    env.add(fieldRef("POD_NAME", "metadata.name"));
    env.add(value("BATON_AGENT_GATE", o.gatePort() + ":127.0.0.1:" + o.appPort()));
    if (o.relay()) {
      env.add(value("BATON_AGENT_RELAY", o.gatePort() + ":" + o.leaderOnlyPort()));
      if (t.relaySecret() != null) {
        env.add(secret("BATON_AGENT_RELAY_SECRET", t.relaySecret(), "relay-secret", false));
      }
    }
    env.add(value("BATON_AGENT_HEALTH_LISTEN", ":" + o.healthPort()));
    if (t.roleLabel() != null) {
      env.add(value("BATON_AGENT_ROLE_LABEL", t.roleLabel()));
    }
    if (o.confirmWithin() != null) {
      env.add(value("BATON_AGENT_CONFIRM_WITHIN", o.confirmWithin()));
    }
    if (t.redisSecret() != null) {
      env.add(secret("BATON_REDIS_URL", t.redisSecret(), "url", false));
      env.add(secret("BATON_REDIS_USERNAME", t.redisSecret(), "username", true));
      env.add(secret("BATON_REDIS_PASSWORD", t.redisSecret(), "password", true));
      env.add(
          secret(
              "BATON_REDIS_SENTINEL_USERNAME",
              t.redisSecret(),
              RedisSecrets.SENTINEL_USERNAME,
              true));
      env.add(
          secret(
              "BATON_REDIS_SENTINEL_PASSWORD",
              t.redisSecret(),
              RedisSecrets.SENTINEL_PASSWORD,
              true));
      env.add(secret("BATON_REDIS_CA", t.redisSecret(), RedisSecrets.CA_CERTIFICATE, true));
    }
    return env;
  }

  /**
   * The service account's token, the cluster's CA and the namespace, as the API server's own {@code
   * kube-api-access-*} volume holds them, mounted in the agent alone: the application's containers
   * get no token from Baton (and none at all where the pod sets automountServiceAccountToken:
   * false).
   */
  public static Volume tokenVolume() {
    return new VolumeBuilder()
        .withName(AgentNames.TOKEN_VOLUME)
        .withNewProjected()
        .withDefaultMode(0644)
        .addNewSource()
        .withNewServiceAccountToken()
        .withPath("token")
        .withExpirationSeconds(3607L)
        .endServiceAccountToken()
        .endSource()
        .addNewSource()
        .withNewConfigMap()
        .withName("kube-root-ca.crt")
        .addNewItem()
        .withKey("ca.crt")
        .withPath("ca.crt")
        .endItem()
        .endConfigMap()
        .endSource()
        .addNewSource()
        .withNewDownwardAPI()
        .addNewItem()
        .withPath("namespace")
        .withNewFieldRef()
        .withApiVersion("v1")
        .withFieldPath("metadata.namespace")
        .endFieldRef()
        .endItem()
        .endDownwardAPI()
        .endSource()
        .endProjected()
        .build();
  }

  private static io.fabric8.kubernetes.api.model.ResourceRequirements resources(AgentOptions o) {
    Map<String, Quantity> requests = new LinkedHashMap<>();
    requests.put("cpu", new Quantity(o.cpuRequest()));
    requests.put("memory", new Quantity(o.memoryRequest()));
    Map<String, Quantity> limits = new LinkedHashMap<>();
    if (o.cpuLimit() != null) {
      limits.put("cpu", new Quantity(o.cpuLimit()));
    }
    limits.put("memory", new Quantity(o.memoryLimit()));
    return new ResourceRequirementsBuilder().withRequests(requests).withLimits(limits).build();
  }

  private static EnvVar value(String name, String value) {
    return new EnvVarBuilder().withName(name).withValue(value).build();
  }

  private static EnvVar fieldRef(String name, String path) {
    return new EnvVarBuilder()
        .withName(name)
        .withNewValueFrom()
        .withNewFieldRef()
        .withFieldPath(path)
        .endFieldRef()
        .endValueFrom()
        .build();
  }

  private static EnvVar secret(String name, String secret, String key, boolean optional) {
    return new EnvVarBuilder()
        .withName(name)
        .withNewValueFrom()
        .withNewSecretKeyRef()
        .withName(secret)
        .withKey(key)
        .withOptional(optional ? Boolean.TRUE : null)
        .endSecretKeyRef()
        .endValueFrom()
        .build();
  }
}
