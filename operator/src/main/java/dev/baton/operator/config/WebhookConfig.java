package dev.baton.operator.config;

import dev.baton.client.settings.Setting;
import java.util.List;
import java.util.Map;

/**
 * The agent injection webhook's settings, from the same environment as {@link OperatorConfig} (the
 * chart's {@code webhook.*} values map onto them), listed in {@link OperatorConfig#SETTINGS}.
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

  private static final String SERVICE_WORDS =
      "the Service the API server calls it through: the serving certificate's DNS names";

  static final Setting<Boolean> S_ENABLED =
      new Setting<>(
          ENABLED,
          s -> s.equalsIgnoreCase("true"),
          "false",
          "`false` (`true` in the chart)",
          "serve the agent injection webhook (\"Any language\")");
  static final Setting<Integer> S_PORT =
      new Setting<>(PORT, OperatorConfig::port, "9443", "its HTTPS port");
  static final Setting<String> S_SERVICE =
      Setting.text(SERVICE, "baton-operator-webhook", SERVICE_WORDS);
  static final Setting<String> S_NAMESPACE =
      Setting.text(NAMESPACE, null, "the pod's namespace", SERVICE_WORDS);
  static final Setting<String> S_CA_SECRET =
      Setting.text(
          CA_SECRET, null, "`<service>-ca`", "the Secret holding the operator's CA for it");
  static final Setting<String> S_CONFIGURATION =
      Setting.text(
          CONFIGURATION,
          null,
          "the MutatingWebhookConfiguration whose caBundle the operator keeps");
  static final Setting<String> S_CERT_DIR =
      Setting.text(
          CERT_DIR,
          null,
          "read `tls.crt` and `tls.key` there instead (cert-manager's Secret, mounted); no CA of "
              + "its own");
  static final Setting<String> S_NATIVE_SIDECAR =
      new Setting<>(
          NATIVE_SIDECAR,
          WebhookConfig::nativeSidecarMode,
          "auto",
          "`true`, `false`, or by the API server's version (1.29+)");
  static final Setting<String> S_AGENT_IMAGE =
      Setting.text(
          AGENT_IMAGE,
          null,
          "required with the webhook",
          "the image injected, the operator's own; pods on another are reported as outdated");
  static final Setting<String> S_AGENT_REDIS_SECRET =
      Setting.text(
          AGENT_REDIS_SECRET,
          "baton-redis",
          "the Secret in each app namespace for agents of groups on the default Redis; empty: "
              + "none; unused with `BATON_REDIS_ACL_PER_GROUP=true`, where each agent takes its "
              + "group's `baton-redis-<group>`");

  static WebhookConfig from(
      Map<String, String> env, String operatorNamespace, boolean groupRedisUsers) {
    boolean enabled = S_ENABLED.readOrThrow(env);
    String service = S_SERVICE.readOrThrow(env);
    String image = S_AGENT_IMAGE.readOrThrow(env);
    if (enabled && image == null) {
      throw new IllegalArgumentException(
          AGENT_IMAGE + " must name the agent's image (the operator's own) when " + ENABLED);
    }
    int port = S_PORT.readOrThrow(env);
    String nativeSidecar = S_NATIVE_SIDECAR.readOrThrow(env);
    // Absent: the default name; present and empty: no Secret (agents without Redis), which a
    // Setting, reading blank as its default, cannot say.
    String redisSecret =
        env.containsKey(AGENT_REDIS_SECRET) && trim(env.get(AGENT_REDIS_SECRET)) == null
            ? null
            : S_AGENT_REDIS_SECRET.readOrThrow(env);
    return new WebhookConfig(
        enabled,
        port,
        service,
        or(S_NAMESPACE.readOrThrow(env), operatorNamespace),
        or(S_CA_SECRET.readOrThrow(env), service + "-ca"),
        S_CONFIGURATION.readOrThrow(env),
        S_CERT_DIR.readOrThrow(env),
        image,
        redisSecret,
        nativeSidecar.equals("auto") ? null : Boolean.valueOf(nativeSidecar),
        groupRedisUsers);
  }

  /** {@code auto}, {@code true} or {@code false}. */
  private static String nativeSidecarMode(String s) {
    if (!List.of("auto", "true", "false").contains(s)) {
      throw new IllegalArgumentException("'" + s + "' must be auto, true or false");
    }
    return s;
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
