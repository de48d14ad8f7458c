package dev.baton.operator.config;

import dev.baton.api.v1alpha1.LabelKeys;
import dev.baton.api.v1alpha1.RedisKeys;
import dev.baton.client.GoDuration;
import dev.baton.client.settings.PortNumber;
import dev.baton.client.settings.Setting;
import dev.baton.operator.lease.RedisSettings;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The operator's settings, read from a map of environment variables (never from System.getenv
 * directly, so tests pass their own) through {@link #SETTINGS}: each entry names its variable,
 * parser, default and the README's words for it, and README.md's table of the operator's settings
 * is {@link Setting#table(List)} of that list (SettingsTableTest).
 */
public record OperatorConfig(
    RedisSettings redis,
    Set<String> namespaces,
    String clusterId,
    int httpPort,
    boolean leaderElection,
    String leaderElectionNamespace,
    Duration redisTimeout,
    String leaderElectionIdentity,
    Duration leaderElectionLease,
    String leaderElectionLeaseName,
    List<String> sharedKeyPrefixes,
    List<String> roleLabelPrefixes,
    boolean redisAclPerGroup,
    WebhookConfig webhook) {

  public static final String REDIS_URL = "BATON_REDIS_URL";
  public static final String REDIS_USERNAME = "BATON_REDIS_USERNAME";
  public static final String REDIS_PASSWORD = "BATON_REDIS_PASSWORD";
  public static final String NAMESPACES = "BATON_NAMESPACES";
  public static final String CLUSTER_ID = "BATON_CLUSTER_ID";
  public static final String HTTP_PORT = "BATON_HTTP_PORT";
  public static final String LEADER_ELECTION = "BATON_LEADER_ELECTION";
  public static final String LEADER_ELECTION_NAMESPACE = "BATON_LEADER_ELECTION_NAMESPACE";
  public static final String REDIS_TIMEOUT = "BATON_REDIS_TIMEOUT";
  public static final String REDIS_SENTINEL_USERNAME = "BATON_REDIS_SENTINEL_USERNAME";
  public static final String REDIS_SENTINEL_PASSWORD = "BATON_REDIS_SENTINEL_PASSWORD";

  /** A PEM file of CA certificates that a rediss:// default Redis is trusted by. */
  public static final String REDIS_CA_FILE = "BATON_REDIS_CA_FILE";

  /** This replica's name in the operator Lease; default the pod name (HOSTNAME). */
  public static final String LEADER_ELECTION_IDENTITY = "BATON_LEADER_ELECTION_IDENTITY";

  /** How long the operator Lease lasts without renewal: how fast a standby takes over. */
  public static final String LEADER_ELECTION_LEASE = "BATON_LEADER_ELECTION_LEASE";

  /**
   * The name of the operator Lease; default {@code baton-operator}. Two installs in one namespace
   * need two names, or their replicas elect one active operator between them.
   */
  public static final String LEADER_ELECTION_LEASE_NAME = "BATON_LEADER_ELECTION_LEASE_NAME";

  public static final String DEFAULT_LEASE_NAME = "baton-operator";

  /** A Lease's name is a DNS subdomain: lower-case alphanumerics, '-' and '.', 253 at most. */
  private static final String LEASE_NAME_PATTERN =
      "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*";

  /**
   * Key prefixes any namespace may use for spec.electionKey and spec.key, besides its own {@code
   * <namespace>/}: for groups that span clusters sharing one Redis (docs/design.md, "Multi-tenant
   * clusters").
   */
  public static final String SHARED_KEY_PREFIXES = "BATON_SHARED_KEY_PREFIXES";

  /** Label-key prefixes a role label may use without the pods' consent, besides baton.dev/. */
  public static final String ROLE_LABEL_PREFIXES = "BATON_ROLE_LABEL_PREFIXES";

  /**
   * "true": every LeaderGroup and RedisLock gets a Redis user of its own, limited to its keys, in a
   * Secret of its namespace (docs/redis-acl.md); the operator's own user must be allowed ACL
   * SETUSER and ACL DELUSER.
   */
  public static final String REDIS_ACL_PER_GROUP = "BATON_REDIS_ACL_PER_GROUP";

  /** Baton's log level; read by log4j2.xml, not here. */
  public static final String LOG_LEVEL = "BATON_LOG_LEVEL";

  /** {@code json}: one JSON object a line; read by log4j2.xml, not here. */
  public static final String LOG_FORMAT = "BATON_LOG_FORMAT";

  private static final String CLUSTER_ID_PATTERN = "[A-Za-z0-9][-A-Za-z0-9_.]{0,62}";

  private static final String CREDENTIALS_WORDS =
      "credentials for the default Redis; never logged, never in status or Events";
  private static final String SENTINEL_CREDENTIALS_WORDS =
      "credentials for the sentinels themselves, when they differ";

  private static final Setting<String> S_REDIS_URL =
      Setting.text(
          REDIS_URL,
          "redis://127.0.0.1:6379",
          "the default Redis: `redis://`, `rediss://`, "
              + "`redis-sentinel://host:port,host:port/master-name`, or a Redis Cluster's seed "
              + "nodes `redis-cluster://host:port,host:port` (`rediss-cluster://` for TLS)");
  private static final Setting<String> S_REDIS_USERNAME =
      Setting.text(REDIS_USERNAME, null, CREDENTIALS_WORDS);
  private static final Setting<String> S_REDIS_PASSWORD =
      Setting.text(REDIS_PASSWORD, null, CREDENTIALS_WORDS);
  private static final Setting<String> S_REDIS_SENTINEL_USERNAME =
      Setting.text(
          REDIS_SENTINEL_USERNAME, null, "the data credentials", SENTINEL_CREDENTIALS_WORDS);
  private static final Setting<String> S_REDIS_SENTINEL_PASSWORD =
      Setting.text(
          REDIS_SENTINEL_PASSWORD, null, "the data credentials", SENTINEL_CREDENTIALS_WORDS);
  private static final Setting<String> S_REDIS_CA_FILE =
      new Setting<>(
          REDIS_CA_FILE,
          OperatorConfig::readFile,
          null,
          "the JVM's trust store",
          "PEM file of CA certificates trusted for a `rediss://` or `rediss-cluster://` default "
              + "Redis");
  private static final Setting<Duration> S_REDIS_TIMEOUT =
      new Setting<>(
          REDIS_TIMEOUT,
          GoDuration::parse,
          "1s",
          "connect and command timeout; past it the operator fails static");
  private static final Setting<Set<String>> S_NAMESPACES =
      new Setting<>(
          NAMESPACES, OperatorConfig::namespaces, "", "all", "comma-separated namespaces to watch");
  private static final Setting<String> S_CLUSTER_ID =
      Setting.text(CLUSTER_ID, "default", "this cluster's name in shared holder records");
  private static final Setting<Integer> S_HTTP_PORT =
      new Setting<>(
          HTTP_PORT,
          OperatorConfig::port,
          "8080",
          "`/metrics` (Prometheus text), `/healthz`, `/readyz`");
  private static final Setting<Boolean> S_LEADER_ELECTION =
      new Setting<>(
          LEADER_ELECTION,
          OperatorConfig::parseBoolean,
          null,
          "`true` in a pod",
          "several operator replicas: one active, the others standby with warm caches, through a "
              + "Kubernetes Lease `baton-operator`. `false` means one replica: a second one "
              + "started by mistake finds the first registered in Redis, stands by and says so (an "
              + "error log, `baton_operator_other_active_replica`)");
  private static final Setting<String> S_LEADER_ELECTION_NAMESPACE =
      Setting.text(
          LEADER_ELECTION_NAMESPACE, null, "the pod's namespace", "where that Lease lives");
  private static final Setting<String> S_LEADER_ELECTION_LEASE_NAME =
      Setting.text(
          LEADER_ELECTION_LEASE_NAME,
          DEFAULT_LEASE_NAME,
          "that Lease's name; two installs in one namespace need two names, or they elect one "
              + "active operator between them");
  private static final Setting<String> S_LEADER_ELECTION_IDENTITY =
      Setting.text(
          LEADER_ELECTION_IDENTITY,
          null,
          "`HOSTNAME` (the pod name)",
          "this replica's name in the Lease");
  private static final Setting<Duration> S_LEADER_ELECTION_LEASE =
      new Setting<>(
          LEADER_ELECTION_LEASE,
          GoDuration::parse,
          "1500ms",
          "how long a standby waits without seeing the Lease renewed before it takes over (at "
              + "least 1s); the active replica renews five times per lease and stops acting two "
              + "thirds of a lease after its last renewal; a replica that loses the Lease exits "
              + "and is restarted as a standby; SIGTERM hands over at once");
  private static final Setting<String> S_LOG_LEVEL =
      Setting.text(LOG_LEVEL, "info", "Baton's log level");
  private static final Setting<String> S_LOG_FORMAT =
      Setting.text(LOG_FORMAT, "text", "`json` for one JSON object a line (ECS layout)");
  private static final Setting<List<String>> S_SHARED_KEY_PREFIXES =
      new Setting<>(
          SHARED_KEY_PREFIXES,
          OperatorConfig::keyPrefixes,
          "",
          "comma-separated key prefixes, each ending with `/` (e.g. `global/`), that any namespace "
              + "may use for `spec.electionKey` and a RedisLock's `spec.key` besides its own "
              + "`<namespace>/`: for groups that span clusters sharing one Redis. Not "
              + "`baton-operator/`, nor one holding `:` before its first `/`");
  private static final Setting<List<String>> S_ROLE_LABEL_PREFIXES =
      new Setting<>(
          ROLE_LABEL_PREFIXES,
          OperatorConfig::labelPrefixes,
          "",
          "comma-separated label-key prefixes (a DNS subdomain and `/`, e.g. `example.com/`) a "
              + "group's `spec.roleLabel` may use on every pod, besides `baton.dev/`; other keys "
              + "go only on pods annotated `baton.dev/allow-role-label`");
  private static final Setting<Boolean> S_REDIS_ACL_PER_GROUP =
      new Setting<>(
          REDIS_ACL_PER_GROUP,
          OperatorConfig::parseBoolean,
          "false",
          "`true`: a Redis user per LeaderGroup and RedisLock, in Secret `baton-redis-<group>` "
              + "(`baton-redis-lock-<lock>`) of its namespace, for its agents; the operator's own "
              + "user needs `+acl\\|setuser +acl\\|deluser` ([Multi-tenant clusters]"
              + "(#multi-tenant-clusters), [docs/redis-acl.md]"
              + "(docs/redis-acl.md#a-redis-user-per-group-redisaclpergroupusers))");

  /**
   * Every variable the operator reads, in the order of README.md's table: its own, the webhook's
   * ({@link WebhookConfig}) and the two log4j2.xml reads ({@value #LOG_LEVEL}, {@value
   * #LOG_FORMAT}). {@code HOSTNAME}, the identity's fallback, is the pod's own and not listed.
   */
  public static final List<Setting<?>> SETTINGS =
      List.of(
          S_REDIS_URL,
          S_REDIS_USERNAME,
          S_REDIS_PASSWORD,
          S_REDIS_SENTINEL_USERNAME,
          S_REDIS_SENTINEL_PASSWORD,
          S_REDIS_CA_FILE,
          S_REDIS_TIMEOUT,
          S_NAMESPACES,
          S_CLUSTER_ID,
          S_HTTP_PORT,
          S_LEADER_ELECTION,
          S_LEADER_ELECTION_NAMESPACE,
          S_LEADER_ELECTION_LEASE_NAME,
          S_LEADER_ELECTION_IDENTITY,
          S_LEADER_ELECTION_LEASE,
          S_LOG_LEVEL,
          S_LOG_FORMAT,
          WebhookConfig.S_ENABLED,
          WebhookConfig.S_PORT,
          WebhookConfig.S_SERVICE,
          WebhookConfig.S_NAMESPACE,
          WebhookConfig.S_CA_SECRET,
          WebhookConfig.S_CONFIGURATION,
          WebhookConfig.S_CERT_DIR,
          WebhookConfig.S_NATIVE_SIDECAR,
          WebhookConfig.S_AGENT_IMAGE,
          WebhookConfig.S_AGENT_REDIS_SECRET,
          S_SHARED_KEY_PREFIXES,
          S_ROLE_LABEL_PREFIXES,
          S_REDIS_ACL_PER_GROUP);

  /**
   * Builds the configuration.
   *
   * @param env environment variables
   * @param inCluster whether the process runs in a pod (the default of leader election)
   */
  public static OperatorConfig from(Map<String, String> env, boolean inCluster) {
    RedisSettings redis = defaultRedis(env);
    Set<String> namespaces = S_NAMESPACES.readOrThrow(env);
    String clusterId = S_CLUSTER_ID.readOrThrow(env);
    if (!clusterId.matches(CLUSTER_ID_PATTERN)) {
      throw new IllegalArgumentException(
          CLUSTER_ID + " '" + clusterId + "' must match " + CLUSTER_ID_PATTERN);
    }
    int port = S_HTTP_PORT.readOrThrow(env);
    Boolean electionSet = S_LEADER_ELECTION.readOrThrow(env);
    boolean election = electionSet == null ? inCluster : electionSet;
    Duration timeout = S_REDIS_TIMEOUT.readOrThrow(env);
    Duration lease = S_LEADER_ELECTION_LEASE.readOrThrow(env);
    if (lease.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException(LEADER_ELECTION_LEASE + " must be at least 1s");
    }
    String leaseName = S_LEADER_ELECTION_LEASE_NAME.readOrThrow(env);
    if (leaseName.length() > 253 || !leaseName.matches(LEASE_NAME_PATTERN)) {
      throw new IllegalArgumentException(
          LEADER_ELECTION_LEASE_NAME
              + " '"
              + leaseName
              + "' is not a valid object name (lower-case letters, digits, '-' and '.')");
    }
    String identity =
        or(S_LEADER_ELECTION_IDENTITY.readOrThrow(env), blankToNull(env.get("HOSTNAME")));
    List<String> sharedKeys = S_SHARED_KEY_PREFIXES.readOrThrow(env);
    List<String> roleLabels = S_ROLE_LABEL_PREFIXES.readOrThrow(env);
    boolean perGroup = S_REDIS_ACL_PER_GROUP.readOrThrow(env);
    String leaseNamespace = S_LEADER_ELECTION_NAMESPACE.readOrThrow(env);
    return new OperatorConfig(
        redis,
        namespaces,
        clusterId,
        port,
        election,
        leaseNamespace,
        timeout,
        identity,
        lease,
        leaseName,
        sharedKeys,
        roleLabels,
        perGroup,
        WebhookConfig.from(env, leaseNamespace, perGroup));
  }

  /** The namespaces to watch; empty: all. */
  private static Set<String> namespaces(String value) {
    return value == null
        ? Set.of()
        : Arrays.stream(value.split(","))
            .map(String::trim)
            .filter(s -> !s.isEmpty())
            .collect(Collectors.toUnmodifiableSet());
  }

  /** The default Redis: its URL, credentials and CA. */
  private static RedisSettings defaultRedis(Map<String, String> env) {
    RedisSettings redis =
        new RedisSettings(
                S_REDIS_URL.readOrThrow(env),
                S_REDIS_USERNAME.readOrThrow(env),
                S_REDIS_PASSWORD.readOrThrow(env))
            .withSentinelCredentials(
                S_REDIS_SENTINEL_USERNAME.readOrThrow(env),
                S_REDIS_SENTINEL_PASSWORD.readOrThrow(env));
    String caCertificates = S_REDIS_CA_FILE.readOrThrow(env);
    if (caCertificates == null) {
      return redis;
    }
    try {
      return redis.withCaCertificate(caCertificates);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(REDIS_CA_FILE + ": " + e.getMessage(), e);
    }
  }

  /**
   * The operator's Lease's namespace (and the webhook's): {@value #LEADER_ELECTION_NAMESPACE}, else
   * the pod's own, read from {@code podNamespaceFile} (its service account's).
   */
  public String leaseNamespace(Path podNamespaceFile) {
    if (leaderElectionNamespace != null) {
      return leaderElectionNamespace;
    }
    try {
      return Files.readString(podNamespaceFile).trim();
    } catch (IOException e) {
      throw new IllegalStateException(
          LEADER_ELECTION_NAMESPACE
              + " is not set and the pod's namespace is unknown; set it or"
              + " BATON_LEADER_ELECTION=false");
    }
  }

  /** Prefixes of keys, each ending with '/' and none of Baton's own. */
  private static List<String> keyPrefixes(String value) {
    List<String> out = new ArrayList<>();
    for (String p : list(value)) {
      if (!p.endsWith("/")) {
        throw new IllegalArgumentException("'" + p + "' must end with '/', as in global/");
      }
      String problem = RedisKeys.problem("a prefix", p + "x");
      if (problem != null) {
        throw new IllegalArgumentException(problem.replace(p + "x", p));
      }
      out.add(p);
    }
    return List.copyOf(out);
  }

  /** Prefixes of label keys: a DNS subdomain and '/', as in example.com/. */
  private static List<String> labelPrefixes(String value) {
    List<String> out = new ArrayList<>();
    for (String p : list(value)) {
      if (!p.endsWith("/") || !LabelKeys.isValid(p + "x")) {
        throw new IllegalArgumentException(
            "'" + p + "' must be a DNS subdomain and a '/', as in example.com/");
      }
      out.add(p);
    }
    return List.copyOf(out);
  }

  private static List<String> list(String value) {
    return value == null
        ? List.of()
        : Arrays.stream(value.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList();
  }

  /** All namespaces are watched when the set is empty. */
  public boolean watchesAllNamespaces() {
    return namespaces.isEmpty();
  }

  private static boolean parseBoolean(String s) {
    if (s.equalsIgnoreCase("true") || s.equalsIgnoreCase("false")) {
      return Boolean.parseBoolean(s);
    }
    throw new IllegalArgumentException("'" + s + "' is neither true nor false");
  }

  /** A port one of the operator's servers listens on; 0: any free one. */
  static int port(String s) {
    return PortNumber.parseListening(s)
        .orElseThrow(() -> new IllegalArgumentException("'" + s + "' is not a port (0 to 65535)"));
  }

  private static String readFile(String path) {
    try {
      return Files.readString(Path.of(path), StandardCharsets.US_ASCII);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(
          "cannot read the file " + path + " (" + e.getClass().getSimpleName() + ")");
    }
  }

  private static String or(String value, String fallback) {
    return value == null ? fallback : value;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }
}
