package dev.baton.agent.metrics;

import dev.baton.agent.leadership.LeadershipView;
import dev.baton.agent.leadership.RedisHealth;
import dev.baton.client.BatonLeadership;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The agent's meters, all under {@code baton_agent_}, in a Micrometer {@link
 * PrometheusMeterRegistry} of their own that writes the Prometheus text format: no JVM or process
 * binders, the agent's meters alone. Micrometer names them with dots ({@code baton.agent.gate.cut}
 * is {@code baton_agent_gate_cut_total}, a counter's {@code _total} added by the registry). Labels
 * carry ports, operations and outcomes only: never a key's holder value, never a credential.
 */
public final class AgentMetrics {

  public static final String PREFIX = "baton_agent_";

  /** {@link #PREFIX} as Micrometer names it. */
  private static final String NAME = "baton.agent.";

  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  // The counters of the gates' and relays' paths, made on their first use and kept by their labels'
  // values, so a connection costs a map lookup and no registration.
  private final Map<Integer, Counter> accepted = new ConcurrentHashMap<>();
  private final Map<Integer, Counter> refused = new ConcurrentHashMap<>();
  private final Map<Integer, Counter> cut = new ConcurrentHashMap<>();
  private final Map<Integer, LongAdder> openConnections = new ConcurrentHashMap<>();
  private final Map<Series, Counter> labeled = new ConcurrentHashMap<>();

  private volatile Supplier<LeadershipView> leadership = () -> null;
  private volatile BooleanSupplier podReady = () -> false;
  // Held here: the function counters over it hold it weakly.
  private volatile RedisHealth redis;
  private volatile Supplier<BatonLeadership.WatchState> podWatchState =
      () -> BatonLeadership.WatchState.OPENING;
  private volatile LongSupplier podWatchFailures = () -> 0;

  /** A counter's name (without the prefix) and its labels' values but the port's, or status's. */
  private record Series(String name, int number, String value) {}

  public AgentMetrics() {
    gauge(
        "leader",
        "1 while this pod leads and its gates are open",
        () -> {
          LeadershipView v = leadership.get();
          return v != null && v.leader() ? 1 : 0;
        });
    gauge(
        "term",
        "the term this pod leads with, 0 while it does not lead",
        () -> {
          LeadershipView v = leadership.get();
          return v == null || v.term() == null ? 0 : v.term();
        });
    gauge(
        "pod_ready",
        "1 while this pod, as last seen, is ready as the operator counts it",
        () -> podReady.getAsBoolean() ? 1 : 0);
    gauge(
        "pod_watch_open",
        "1 while the watch of this pod is open; 0: a demotion is learned from the next read only",
        () -> podWatchState.get() == BatonLeadership.WatchState.OPEN ? 1 : 0);
    // One series per state, 1 for the state the watch is in: opening (not open yet, the pod read
    // often), open, broken (no answer, the pod read often), refused (a 4xx or 5xx, reads at their
    // usual pace), so an alert can tell a network that drops the first connection from missing
    // RBAC.
    for (BatonLeadership.WatchState s : BatonLeadership.WatchState.values()) {
      Gauge.builder(meterName("pod_watch_state"), () -> podWatchState.get() == s ? 1 : 0)
          .description(
              "1 for the state the watch of this pod is in: opening, open, broken, refused")
          .tag("state", s.name().toLowerCase(Locale.ROOT))
          .register(registry);
    }
    FunctionCounter.builder(
            meterName("pod_watch_failures"), this, m -> m.podWatchFailures.getAsLong())
        .description("watches of this pod that failed or were refused")
        .register(registry);
  }

  public void leadership(Supplier<LeadershipView> view) {
    this.leadership = view;
  }

  public void podReady(BooleanSupplier ready) {
    this.podReady = ready;
  }

  /** The pod watch: how it stands (opening, open, broken, refused), and how often it failed. */
  public void podWatch(Supplier<BatonLeadership.WatchState> state, LongSupplier failures) {
    this.podWatchState = state;
    this.podWatchFailures = failures;
  }

  /** The agent's Redis, when it has one: its meters appear from then on. Called once at most. */
  public void redis(RedisHealth health) {
    this.redis = health;
    gauge("redis_up", "1 while Redis answered the agent's last call", health::up);
    gauge(
        "redis_evicts_gate_key",
        "1 when the Redis node of the gate key may evict it (maxmemory with an eviction"
            + " policy), 0 when it cannot, -1 when unknown (INFO not permitted)",
        health::evictsGateKey);
    gauge(
        "redis_aof_enabled",
        "1 when the gate key's node appends every write to its AOF, 0 when not, -1 unknown",
        health::aofEnabled);
    gauge(
        "redis_rdb_saves",
        "RDB snapshots the gate key's node made since it started, -1 unknown",
        health::rdbSaves);
    gauge(
        "redis_master",
        "1 when the gate key's node is a master, 0 a replica, -1 unknown",
        health::master);
    gauge(
        "redis_replicas",
        "replicas connected to the gate key's node, -1 unknown",
        health::replicas);
    gauge(
        "redis_min_replicas_good",
        "replicas good for min-replicas-to-write on the gate key's node, -1 when it is not set",
        health::goodReplicas);
    FunctionCounter.builder(meterName("redis_clock_steps"), health, RedisHealth::clockSteps)
        .description("steps of Redis's clock seen against the agent's monotonic clock")
        .register(registry);
    FunctionCounter.builder(
            meterName("redis_incarnations_seen"), health, RedisHealth::incarnationsSeen)
        .description("times Redis answered as another incarnation (a restart, a promoted replica)")
        .register(registry);
  }

  public void gateAccepted(int port) {
    portCounter(accepted, "gate_connections", port).increment();
    open(port).increment();
  }

  public void gateRefused(int port) {
    portCounter(refused, "gate_refused", port).increment();
  }

  /**
   * A connection reset by one of the gate's bounds: {@code connections} (the gate forwarded as many
   * as it may), {@code buffers} (its loop held every buffer for slower peers), {@code stalled} (its
   * slower peer took nothing for too long), {@code handshakes} (preambles from its address were
   * being read already).
   */
  public void gateBounded(int port, String bound) {
    portCounter("gate_bounded", port, "bound", bound).increment();
  }

  public void gateCut(int port, int connections) {
    portCounter(cut, "gate_cut", port).increment(connections);
  }

  /**
   * A connection to a shut gate, relayed to the leader's agent ({@code relayed}), handed back by a
   * leader's gate that shut before a byte moved and carried again ({@code retried}), reset after
   * its bytes were sent and before the gate said whether it passed them ({@code lost}), or reset
   * after no leader's gate took it within the hold, or over the relay's bounds ({@code refused}).
   */
  public void relay(int port, String outcome) {
    portCounter("relay_connections", port, "outcome", outcome).increment();
  }

  /**
   * One try of a relayed connection at a leader's gate: {@code taken}, {@code refused} (the gate
   * said no), {@code silent} (it ended the line without a word), {@code unreachable} (no connection
   * or answer in time) or {@code abandoned} (another holder became known while it waited).
   */
  public void relayAttempt(int port, String result) {
    portCounter("relay_attempts", port, "result", result).increment();
  }

  public void gateEnded(int port) {
    open(port).decrement();
  }

  /** One lock request: acquire, renew, release or state, and its HTTP status. */
  public void lockRequest(String operation, int status) {
    labeled
        .computeIfAbsent(
            new Series("lock_requests", status, operation),
            s ->
                Counter.builder(meterName(s.name()))
                    .description(COUNTED.get(s.name()))
                    .tag("operation", operation)
                    .tag("status", Integer.toString(status))
                    .register(registry))
        .increment();
  }

  /** The text for {@code /metrics}: the Prometheus text format, version 0.0.4. */
  public String scrape() {
    return registry.scrape();
  }

  /** The connections a gate forwards now: a gauge per port from the first that opened or ended. */
  private LongAdder open(int port) {
    return openConnections.computeIfAbsent(
        port,
        p -> {
          LongAdder n = new LongAdder();
          Gauge.builder(meterName("gate_connections_open"), n, a -> Math.max(0, a.sum()))
              .description("connections forwarded now")
              .tag("port", Integer.toString(p))
              .strongReference(true)
              .register(registry);
          return n;
        });
  }

  private Counter portCounter(Map<Integer, Counter> counters, String name, int port) {
    return counters.computeIfAbsent(
        port,
        p ->
            Counter.builder(meterName(name))
                .description(COUNTED.get(name))
                .tag("port", Integer.toString(p))
                .register(registry));
  }

  private Counter portCounter(String name, int port, String label, String value) {
    return labeled.computeIfAbsent(
        new Series(name, port, value),
        s ->
            Counter.builder(meterName(name))
                .description(COUNTED.get(name))
                .tag("port", Integer.toString(port))
                .tag(label, value)
                .register(registry));
  }

  /** What each counter by label counts: its HELP line. */
  private static final Map<String, String> COUNTED =
      Map.of(
          "gate_connections", "connections a gate took and forwarded",
          "gate_refused", "connections a gate reset because it was shut",
          "gate_cut", "forwarded connections a gate reset as it shut",
          "gate_bounded", "connections a gate reset at one of its bounds",
          "relay_connections", "connections to a shut gate, by what the relay did with them",
          "relay_attempts", "tries of a relayed connection at a leader's gate, by result",
          "lock_requests", "lock requests to the agent's HTTP API, by operation and status");

  /** A gauge with no labels over a live value. */
  private void gauge(String name, String help, LongSupplier value) {
    Gauge.builder(meterName(name), value, v -> v.getAsLong())
        .description(help)
        .strongReference(true)
        .register(registry);
  }

  /**
   * Micrometer's name for {@code baton_agent_<name>}: dots where the exposition has underscores,
   * and a counter's without the {@code _total} its registry adds.
   */
  private static String meterName(String name) {
    return NAME + name.replace('_', '.');
  }
}
