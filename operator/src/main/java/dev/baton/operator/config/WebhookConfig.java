package dev.baton.operator.config;

import java.util.List;
import java.util.Map;

/**
 * The agent injection webhook's settings, from the same environment as {@link OperatorConfig} (the
 * chart's {@code webhook.*} values map onto them).
 *
 * @param namespace where the webhook's Service and CA Secret are: the operator's own
 * @param configuration the MutatingWebhookConfiguration whose caBundle the operator keeps; null
 *     with cert-manager, whose CA injector keeps it
 * @param certDir with cert-manager: the mounted Secret's directory; null: the operator's own CA
 * @param agentImage the agent's image, the operator's own; also what "outdated" is measured against
 * @param agentRedisSecret the Secret each app namespace holds for agents of groups on the default
 *     Redis; null: none
 * @param nativeSidecar null: decided by the API server's version (1.29+)
 * @param groupRedisUsers {@value OperatorConfig#REDIS_ACL_PER_GROUP}: agents log in as their
 *     group's own Redis user (Secret baton-redis-&lt;group&gt;), never with agentRedisSecret
 */
public record WebhookConfig(
    boolean enabled,
    int port,
    String service,
    String namespace,
    String caSecret,
    String configuration,
    String certDir,
    String agentImage,
    String agentRedisSecret,
    Boolean nativeSidecar,
    boolean groupRedisUsers) {

  public static final String ENABLED = "BATON_WEBHOOK_ENABLED";
  public static final String PORT = "BATON_WEBHOOK_PORT";
  public static final String SERVICE = "BATON_WEBHOOK_SERVICE";
  public static final String NAMESPACE = "BATON_WEBHOOK_NAMESPACE";
  public static final String CA_SECRET = "BATON_WEBHOOK_CA_SECRET";
  public static final String CONFIGURATION = "BATON_WEBHOOK_CONFIGURATION";
  public static final String CERT_DIR = "BATON_WEBHOOK_CERT_DIR";
  public static final String NATIVE_SIDECAR = "BATON_WEBHOOK_NATIVE_SIDECAR";
  public static final String AGENT_IMAGE = "BATON_AGENT_IMAGE";
  public static final String AGENT_REDIS_SECRET = "BATON_AGENT_REDIS_SECRET";

  static WebhookConfig from(
      Map<String, String> env, String operatorNamespace, boolean groupRedisUsers) {
    boolean enabled = "true".equalsIgnoreCase(trim(env.get(ENABLED)));
    String service = or(trim(env.get(SERVICE)), "baton-operator-webhook");
    String image = trim(env.get(AGENT_IMAGE));
    if (enabled && image == null) {
      throw new IllegalArgumentException(
          AGENT_IMAGE + " must name the agent's image (the operator's own) when " + ENABLED);
    }
    int port;
    try {
      port = Integer.parseInt(or(trim(env.get(PORT)), "9443"));
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(PORT + "='" + env.get(PORT) + "' is not a port");
    }
    String nativeSidecar = or(trim(env.get(NATIVE_SIDECAR)), "auto");
    if (!List.of("auto", "true", "false").contains(nativeSidecar)) {
      throw new IllegalArgumentException(NATIVE_SIDECAR + " must be auto, true or false");
    }
    // Absent: the default name; present and empty: no Secret (agents without Redis).
    String redisSecret =
        env.containsKey(AGENT_REDIS_SECRET) ? trim(env.get(AGENT_REDIS_SECRET)) : "baton-redis";
    return new WebhookConfig(
        enabled,
        port,
        service,
        or(trim(env.get(NAMESPACE)), operatorNamespace),
        or(trim(env.get(CA_SECRET)), service + "-ca"),
        trim(env.get(CONFIGURATION)),
        trim(env.get(CERT_DIR)),
        image,
        redisSecret,
        nativeSidecar.equals("auto") ? null : Boolean.valueOf(nativeSidecar),
        groupRedisUsers);
  }

  /** The names the API server may dial the Service by; the first is the one it uses. */
  public List<String> dnsNames() {
    return List.of(
        service + "." + namespace + ".svc",
        service,
        service + "." + namespace,
        service + "." + namespace + ".svc.cluster.local");
  }

  private static String trim(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }

  private static String or(String value, String fallback) {
    return value == null ? fallback : value;
  }
}
