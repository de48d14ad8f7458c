package dev.baton.agent.config;

import dev.baton.client.BatonNames;
import dev.baton.client.CaCertificates;
import dev.baton.client.GoDuration;
import dev.baton.client.settings.PortNumber;
import dev.baton.client.settings.Setting;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The agent's settings, read from a map of environment variables through {@link #SETTINGS} (name,
 * parser, default and the README's words for each), so that tests pass a map and never touch the
 * process's environment.
 *
 * @param healthListen where {@code /healthz}, {@code /readyz} and {@code /metrics} are also served,
 *     alone, for the kubelet's probes and Prometheus, which cannot reach loopback; absent: nowhere
 * @param redisUrl absent: no locks, and the gate waits {@code confirmWithin} after a promotion
 * @param redisSentinelUsername the sentinels' own user, for a {@code redis-sentinel://} URL;
 *     absent: the data credentials are offered to the sentinels
 * @param redisCa PEM CA certificates a {@code rediss://} server is checked against; absent: the
 *     JVM's
 * @param gateBind the address the gates listen on; absent: every interface
 * @param relays relay mode: gate port to the leader-only port every agent of the group listens on
 * @param relayDrain in relay mode, how long a stopping agent goes on relaying after its gates shut
 * @param relayHold in relay mode, how long a connection waits for a leader's gate to take it before
 *     it is reset
 * @param relaySecret in relay mode, the group's secret a relay's preamble is signed with; absent:
 *     unsigned (the leader-only port's NetworkPolicy alone keeps other pods out)
 */
public record AgentConfig(
    String podName,
    String podNamespace,
    Optional<String> podUid,
    InetSocketAddress listen,
    Optional<InetSocketAddress> healthListen,
    List<GateRoute> gates,
    String roleLabel,
    Duration confirmWithin,
    Optional<String> redisUrl,
    Optional<String> redisUsername,
    Optional<String> redisPassword,
    Optional<String> redisSentinelUsername,
    Optional<String> redisSentinelPassword,
    Optional<String> redisCa,
    Optional<String> kubeconfig,
    Optional<String> gateBind,
    Map<Integer, Integer> relays,
    Duration relayDrain,
    Duration relayHold,
    Optional<String> relaySecret) {

  public static final String POD_NAME = "POD_NAME";
  public static final String POD_NAMESPACE = "POD_NAMESPACE";
  public static final String POD_UID = "POD_UID";
  public static final String LISTEN = "BATON_AGENT_LISTEN";
  public static final String HEALTH_LISTEN = "BATON_AGENT_HEALTH_LISTEN";
  public static final String GATE = "BATON_AGENT_GATE";
  public static final String ROLE_LABEL = "BATON_AGENT_ROLE_LABEL";
  public static final String CONFIRM_WITHIN = "BATON_AGENT_CONFIRM_WITHIN";
  public static final String REDIS_URL = "BATON_REDIS_URL";
  public static final String REDIS_USERNAME = "BATON_REDIS_USERNAME";
  public static final String REDIS_PASSWORD = "BATON_REDIS_PASSWORD";
  public static final String REDIS_SENTINEL_USERNAME = "BATON_REDIS_SENTINEL_USERNAME";
  public static final String REDIS_SENTINEL_PASSWORD = "BATON_REDIS_SENTINEL_PASSWORD";
  public static final String REDIS_CA = "BATON_REDIS_CA";
  public static final String KUBECONFIG = "KUBECONFIG";
  public static final String GATE_BIND = "BATON_AGENT_GATE_BIND";
  public static final String RELAY = "BATON_AGENT_RELAY";
  public static final String RELAY_DRAIN = "BATON_AGENT_RELAY_DRAIN";
  public static final String RELAY_HOLD = "BATON_AGENT_RELAY_HOLD";
  public static final String RELAY_SECRET = "BATON_AGENT_RELAY_SECRET";

  private static final String POD_WORDS = "the pod the agent speaks for (downward API)";
  private static final String REDIS_WORDS =
      "as the operator's: locks, and the gate's fast hand-over (without Redis a new leader's gate "
          + "waits `confirmWithin`)";
  private static final String SENTINEL_WORDS =
      "for a `redis-sentinel://` URL, the sentinels' own credentials, when they differ";

  private static final Setting<String> S_POD_NAME =
      Setting.text(POD_NAME, null, "required", POD_WORDS);
  private static final Setting<String> S_POD_NAMESPACE =
      Setting.text(POD_NAMESPACE, null, "required", POD_WORDS);
  private static final Setting<String> S_POD_UID =
      Setting.text(
          POD_UID,
          null,
          "the pod's uid (downward API: `metadata.uid`), which the locks' holder values name; "
              + "absent: learned from the first read of the pod");
  private static final Setting<InetSocketAddress> S_LISTEN =
      new Setting<>(
          LISTEN,
          AgentConfig::address,
          "127.0.0.1:4040",
          "the HTTP API; any other address is logged as a warning");
  private static final Setting<InetSocketAddress> S_HEALTH_LISTEN =
      new Setting<>(
          HEALTH_LISTEN,
          AgentConfig::address,
          null,
          "also serve `/healthz`, `/readyz` and `/metrics` there, and nothing else (`:4041`: every "
              + "interface), for the kubelet's probes and Prometheus, which cannot reach loopback");
  private static final Setting<List<GateRoute>> S_GATE =
      new Setting<>(
          GATE,
          GateRoute::parseList,
          "",
          "`<listen port>:<target host>:<target port>[,...]`; a port in use ends the agent with an "
              + "error naming it");
  private static final Setting<String> S_GATE_BIND =
      Setting.text(
          GATE_BIND,
          null,
          "every interface",
          "the address the gates listen on (the pod's IP, say)");
  private static final Setting<Map<Integer, Integer>> S_RELAY =
      new Setting<>(
          RELAY,
          AgentConfig::relays,
          "",
          "relay mode (needs `BATON_REDIS_URL`): `<gate port>:<leader-only port>[,...]`; a "
              + "follower relays that gate's connections to the leader's agent on the leader-only "
              + "port, which every pod of the group must use (\"Traffic follows the leader\")");
  private static final Setting<Duration> S_RELAY_HOLD =
      new Setting<>(
          RELAY_HOLD,
          AgentConfig::relayHold,
          "1s",
          "in relay mode, how long a connection waits, unread, for a leader's gate to take it "
              + "before it is reset (up to 30 s; two `confirmWithin` waits through a holder that "
              + "died without letting go)");
  private static final Setting<Duration> S_RELAY_DRAIN =
      new Setting<>(
          RELAY_DRAIN,
          GoDuration::parse,
          "2s",
          "in relay mode, how long a stopping agent keeps relaying new connections after its gates "
              + "shut");
  private static final Setting<String> S_RELAY_SECRET =
      Setting.text(
          RELAY_SECRET,
          null,
          "in relay mode, a secret shared by the group's agents: relays sign their preamble with "
              + "it (HMAC-SHA256) and the leader-only gate takes only signed ones; without it the "
              + "leader-only port's NetworkPolicy is the only boundary");
  private static final Setting<String> S_ROLE_LABEL =
      Setting.text(ROLE_LABEL, BatonNames.DEFAULT_ROLE_LABEL, "the LeaderGroup's `spec.roleLabel`");
  private static final Setting<Duration> S_CONFIRM_WITHIN =
      new Setting<>(
          CONFIRM_WITHIN,
          AgentConfig::confirmWithin,
          "2s",
          "how long a read of the pod confirms leadership; the pod is read every quarter of it");
  private static final Setting<String> S_REDIS_URL = Setting.text(REDIS_URL, null, REDIS_WORDS);
  private static final Setting<String> S_REDIS_USERNAME =
      Setting.text(REDIS_USERNAME, null, REDIS_WORDS);
  private static final Setting<String> S_REDIS_PASSWORD =
      Setting.text(REDIS_PASSWORD, null, REDIS_WORDS);
  private static final Setting<String> S_REDIS_SENTINEL_USERNAME =
      Setting.text(REDIS_SENTINEL_USERNAME, null, "the data credentials", SENTINEL_WORDS);
  private static final Setting<String> S_REDIS_SENTINEL_PASSWORD =
      Setting.text(REDIS_SENTINEL_PASSWORD, null, "the data credentials", SENTINEL_WORDS);
  private static final Setting<String> S_REDIS_CA =
      new Setting<>(
          REDIS_CA,
          AgentConfig::caCertificates,
          null,
          "the JVM's trust store",
          "PEM text of CA certificates trusted for a `rediss://` or `rediss-cluster://` Redis (the "
              + "webhook takes it from the Secret's `ca.crt`)");
  private static final Setting<String> S_KUBECONFIG =
      Setting.text(
          KUBECONFIG,
          null,
          "",
          "outside a cluster: the current context's server, token or client certificate");

  /**
   * Every variable the agent reads, in the order of README.md's table of the agent's settings,
   * which is {@link Setting#table(List)} of this list (SettingsTableTest).
   */
  public static final List<Setting<?>> SETTINGS =
      List.of(
          S_POD_NAME,
          S_POD_NAMESPACE,
          S_POD_UID,
          S_LISTEN,
          S_HEALTH_LISTEN,
          S_GATE,
          S_GATE_BIND,
          S_RELAY,
          S_RELAY_HOLD,
          S_RELAY_DRAIN,
          S_RELAY_SECRET,
          S_ROLE_LABEL,
          S_CONFIRM_WITHIN,
          S_REDIS_URL,
          S_REDIS_USERNAME,
          S_REDIS_PASSWORD,
          S_REDIS_SENTINEL_USERNAME,
          S_REDIS_SENTINEL_PASSWORD,
          S_REDIS_CA,
          S_KUBECONFIG);

  /**
   * Reads every setting and reports every problem at once.
   *
   * @throws IllegalArgumentException listing what is missing or malformed, by variable name
   */
  public static AgentConfig fromEnvironment(Map<String, String> env) {
    List<String> problems = new ArrayList<>();
    String name = S_POD_NAME.read(env, problems);
    String namespace = S_POD_NAMESPACE.read(env, problems);
    if (name == null || namespace == null) {
      problems.add(
          0,
          POD_NAME
              + " and "
              + POD_NAMESPACE
              + " must be set (downward API: metadata.name, metadata.namespace); missing: "
              + (name == null ? POD_NAME : "")
              + (name == null && namespace == null ? ", " : "")
              + (namespace == null ? POD_NAMESPACE : ""));
    }
    AgentConfig c =
        new AgentConfig(
            name,
            namespace,
            Optional.ofNullable(S_POD_UID.read(env, problems)),
            S_LISTEN.read(env, problems),
            Optional.ofNullable(S_HEALTH_LISTEN.read(env, problems)),
            S_GATE.read(env, problems),
            S_ROLE_LABEL.read(env, problems),
            S_CONFIRM_WITHIN.read(env, problems),
            Optional.ofNullable(S_REDIS_URL.read(env, problems)),
            Optional.ofNullable(S_REDIS_USERNAME.read(env, problems)),
            Optional.ofNullable(S_REDIS_PASSWORD.read(env, problems)),
            Optional.ofNullable(S_REDIS_SENTINEL_USERNAME.read(env, problems)),
            Optional.ofNullable(S_REDIS_SENTINEL_PASSWORD.read(env, problems)),
            Optional.ofNullable(S_REDIS_CA.read(env, problems)),
            Optional.ofNullable(S_KUBECONFIG.read(env, problems)),
            Optional.ofNullable(S_GATE_BIND.read(env, problems)),
            S_RELAY.read(env, problems),
            S_RELAY_DRAIN.read(env, problems),
            S_RELAY_HOLD.read(env, problems),
            Optional.ofNullable(S_RELAY_SECRET.read(env, problems)));
    if (c.relays() != null && !c.relays().isEmpty() && c.redisUrl().isEmpty()) {
      problems.add(
          RELAY
              + " needs "
              + REDIS_URL
              + ": followers learn where the leader is from the gate key's hold");
    }
    if (c.redisCa().isPresent()
        && c.redisUrl()
            .filter(u -> u.startsWith("rediss://") || u.startsWith("rediss-cluster://"))
            .isEmpty()) {
      problems.add(
          REDIS_CA + ": a CA is only used with a rediss:// or rediss-cluster:// " + REDIS_URL);
    }
    if (c.relays() != null && c.gates() != null) {
      for (var r : c.relays().entrySet()) {
        if (c.gates().stream().noneMatch(g -> g.listenPort() == r.getKey())) {
          problems.add(RELAY + ": " + r.getKey() + " is not a gate's port (" + GATE + ")");
        }
        if (c.gates().stream().anyMatch(g -> g.listenPort() == r.getValue())) {
          problems.add(
              RELAY + ": the leader-only port " + r.getValue() + " is a gate's port already");
        }
      }
    }
    if (!problems.isEmpty()) {
      throw new IllegalArgumentException(
          "the agent's configuration is invalid:\n  " + String.join("\n  ", problems));
    }
    return c;
  }

  /** PEM text that holds at least one certificate; the text itself is never quoted. */
  static String caCertificates(String pem) {
    CaCertificates.parse(pem);
    return pem;
  }

  /** A relay's hold: positive, and short enough that a client is answered or reset quickly. */
  static Duration relayHold(String text) {
    Duration d = GoDuration.parse(text);
    if (d.isZero() || d.isNegative() || d.compareTo(Duration.ofSeconds(30)) > 0) {
      throw new IllegalArgumentException("must be more than 0 and at most 30s, was " + text);
    }
    return d;
  }

  /** {@code <gate port>:<leader-only port>[,...]}. */
  static Map<Integer, Integer> relays(String text) {
    Map<Integer, Integer> out = new TreeMap<>();
    for (String part : text.split(",")) {
      if (part.isBlank()) {
        continue;
      }
      String[] f = part.trim().split(":");
      if (f.length != 2) {
        throw new IllegalArgumentException(
            "'" + part.trim() + "' must be <gate port>:<leader-only port>");
      }
      int gate = port(f[0]);
      int leaderOnly = port(f[1]);
      if (out.put(gate, leaderOnly) != null) {
        throw new IllegalArgumentException("gate port " + gate + " is given twice");
      }
      if (gate == leaderOnly || out.values().stream().filter(p -> p == leaderOnly).count() > 1) {
        throw new IllegalArgumentException(
            "leader-only port " + leaderOnly + " must be a port of its own");
      }
    }
    return Collections.unmodifiableMap(out);
  }

  private static int port(String text) {
    return PortNumber.parse(text)
        .orElseThrow(
            () -> new IllegalArgumentException("'" + text + "' is not a port (1 to 65535)"));
  }

  /** How often the pod is read again, besides its watch: a quarter of confirmWithin. */
  public Duration confirmEvery() {
    return confirmWithin.dividedBy(4);
  }

  public boolean listensOnLoopback() {
    return listen.getAddress() != null && listen.getAddress().isLoopbackAddress();
  }

  static InetSocketAddress address(String text) {
    int colon = text.lastIndexOf(':');
    if (colon < 0) {
      throw new IllegalArgumentException("'" + text + "' must be <host>:<port>");
    }
    String host = text.substring(0, colon);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    int port =
        PortNumber.parseListening(text.substring(colon + 1))
            .orElseThrow(
                () ->
                    new IllegalArgumentException("'" + text + "' has no valid port (0 to 65535)"));
    InetSocketAddress a =
        host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
    if (a.isUnresolved()) {
      throw new IllegalArgumentException("host '" + host + "' cannot be resolved");
    }
    return a;
  }

  static Duration confirmWithin(String text) {
    Duration d = GoDuration.parse(text);
    if (d.toMillis() < 100) {
      throw new IllegalArgumentException("'" + text + "' is too short: at least 100ms");
    }
    return d;
  }

  /** Never shows a Redis password or the relay secret. */
  @Override
  public String toString() {
    return "pod "
        + podNamespace
        + "/"
        + podName
        + ", HTTP "
        + listen
        + healthListen.map(h -> ", probes and metrics " + h).orElse("")
        + ", gates "
        + gates
        + gateBind.map(b -> " on " + b).orElse("")
        + (relays.isEmpty() ? "" : ", relaying " + relays)
        + (relaySecret.isPresent() ? " (signed)" : "")
        + ", role label "
        + roleLabel
        + ", confirmWithin "
        + confirmWithin.toMillis()
        + "ms, Redis "
        + (redisUrl.isPresent() ? "configured" : "none");
  }
}
