package dev.baton.operator.config;

import dev.baton.api.v1alpha1.LabelKeys;
import dev.baton.api.v1alpha1.RedisKeys;
import dev.baton.client.GoDuration;
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
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The operator's settings, read from a map of environment variables (never from System.getenv
 * directly, so tests pass their own). Each entry names its variable, parser and default.
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

  private static final String CLUSTER_ID_PATTERN = "[A-Za-z0-9][-A-Za-z0-9_.]{0,62}";

  /**
   * Builds the configuration.
   *
   * @param env environment variables
   * @param inCluster whether the process runs in a pod (the default of leader election)
   */
  public static OperatorConfig from(Map<String, String> env, boolean inCluster) {
    Function<String, String> get = k -> blankToNull(env.get(k));
    RedisSettings redis = defaultRedis(get);
    Set<String> namespaces = namespaces(get.apply(NAMESPACES));
    String clusterId = or(get.apply(CLUSTER_ID), "default");
    if (!clusterId.matches(CLUSTER_ID_PATTERN)) {
      throw new IllegalArgumentException(
          CLUSTER_ID + " '" + clusterId + "' must match " + CLUSTER_ID_PATTERN);
    }
    int port = parse(HTTP_PORT, or(get.apply(HTTP_PORT), "8080"), Integer::parseInt);
    boolean election =
        parse(
            LEADER_ELECTION,
            or(get.apply(LEADER_ELECTION), Boolean.toString(inCluster)),
            OperatorConfig::parseBoolean);
    Duration timeout = parse(REDIS_TIMEOUT, or(get.apply(REDIS_TIMEOUT), "1s"), GoDuration::parse);
    Duration lease =
        parse(
            LEADER_ELECTION_LEASE,
            or(get.apply(LEADER_ELECTION_LEASE), "1500ms"),
            GoDuration::parse);
    if (lease.compareTo(Duration.ofSeconds(1)) < 0) {
      throw new IllegalArgumentException(LEADER_ELECTION_LEASE + " must be at least 1s");
    }
    String leaseName = or(get.apply(LEADER_ELECTION_LEASE_NAME), DEFAULT_LEASE_NAME);
    if (leaseName.length() > 253 || !leaseName.matches(LEASE_NAME_PATTERN)) {
      throw new IllegalArgumentException(
          LEADER_ELECTION_LEASE_NAME
              + " '"
              + leaseName
              + "' is not a valid object name (lower-case letters, digits, '-' and '.')");
    }
    String identity = or(get.apply(LEADER_ELECTION_IDENTITY), get.apply("HOSTNAME"));
    List<String> sharedKeys =
        parse(SHARED_KEY_PREFIXES, get.apply(SHARED_KEY_PREFIXES), OperatorConfig::keyPrefixes);
    List<String> roleLabels =
        parse(ROLE_LABEL_PREFIXES, get.apply(ROLE_LABEL_PREFIXES), OperatorConfig::labelPrefixes);
    boolean perGroup =
        parse(
            REDIS_ACL_PER_GROUP,
            or(get.apply(REDIS_ACL_PER_GROUP), "false"),
            OperatorConfig::parseBoolean);
    return new OperatorConfig(
        redis,
        namespaces,
        clusterId,
        port,
        election,
        get.apply(LEADER_ELECTION_NAMESPACE),
        timeout,
        identity,
        lease,
        leaseName,
        sharedKeys,
        roleLabels,
        perGroup,
        WebhookConfig.from(env, get.apply(LEADER_ELECTION_NAMESPACE), perGroup));
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
  private static RedisSettings defaultRedis(Function<String, String> get) {
    RedisSettings redis =
        new RedisSettings(
                or(get.apply(REDIS_URL), "redis://127.0.0.1:6379"),
                get.apply(REDIS_USERNAME),
                get.apply(REDIS_PASSWORD))
            .withSentinelCredentials(
                get.apply(REDIS_SENTINEL_USERNAME), get.apply(REDIS_SENTINEL_PASSWORD));
    String caFile = get.apply(REDIS_CA_FILE);
    return caFile == null
        ? redis
        : parse(REDIS_CA_FILE, caFile, path -> redis.withCaCertificate(readFile(path)));
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
        throw new IllegalArgumentException("a prefix must end with '/', as in global/");
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
            "a prefix must be a DNS subdomain and a '/', as in example.com/");
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
    throw new IllegalArgumentException("expected true or false");
  }

  private static <T> T parse(String name, String value, Function<String, T> parser) {
    try {
      return parser.apply(value);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          name + "='" + value + "' is invalid: " + e.getMessage(), e);
    }
  }

  private static String readFile(String path) {
    try {
      return Files.readString(Path.of(path), StandardCharsets.US_ASCII);
    } catch (IOException | RuntimeException e) {
      throw new IllegalArgumentException(
          "cannot read the file (" + e.getClass().getSimpleName() + ")");
    }
  }

  private static String or(String value, String fallback) {
    return value == null ? fallback : value;
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s.trim();
  }
}
