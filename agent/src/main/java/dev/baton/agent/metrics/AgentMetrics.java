package dev.baton.agent.metrics;

import dev.baton.agent.leadership.LeadershipView;
import dev.baton.agent.leadership.RedisHealth;
import dev.baton.client.BatonLeadership;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The agent's meters, all under {@code baton_agent_}, in the Prometheus text format. Labels carry
 * ports, operations and outcomes only: never a key's holder value, never a credential.
 */
public final class AgentMetrics {

  public static final String PREFIX = "baton_agent_";

  private final Map<String, LongAdder> counters = new ConcurrentHashMap<>();
  private final Map<Integer, LongAdder> openConnections = new ConcurrentHashMap<>();
  private volatile Supplier<LeadershipView> leadership = () -> null;
  private volatile BooleanSupplier podReady = () -> false;
  private volatile RedisHealth redis;
  private volatile Supplier<BatonLeadership.WatchState> podWatchState =
      () -> BatonLeadership.WatchState.OPENING;
  private volatile LongSupplier podWatchFailures = () -> 0;

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

  /** The agent's Redis, when it has one. */
  public void redis(RedisHealth health) {
    this.redis = health;
  }

  public void gateAccepted(int port) {
    count("gate_connections_total{port=\"" + port + "\"}", 1);
    openConnections.computeIfAbsent(port, p -> new LongAdder()).increment();
  }

  public void gateRefused(int port) {
    count("gate_refused_total{port=\"" + port + "\"}", 1);
  }

  /**
   * A connection reset by one of the gate's bounds: {@code connections} (the gate forwarded as many
   * as it may), {@code buffers} (its loop held every buffer for slower peers), {@code stalled} (its
   * slower peer took nothing for too long), {@code handshakes} (preambles from its address were
   * being read already).
   */
  public void gateBounded(int port, String bound) {
    count("gate_bounded_total{port=\"" + port + "\",bound=\"" + bound + "\"}", 1);
  }

  public void gateCut(int port, int connections) {
    count("gate_cut_total{port=\"" + port + "\"}", connections);
  }

  /**
   * A connection to a shut gate, relayed to the leader's agent ({@code relayed}), handed back by a
   * leader's gate that shut before a byte moved and carried again ({@code retried}), or reset after
   * no leader's gate took it within the hold, or over the relay's bounds ({@code refused}).
   */
  public void relay(int port, String outcome) {
    count("relay_connections_total{port=\"" + port + "\",outcome=\"" + outcome + "\"}", 1);
  }

  /**
   * One try of a relayed connection at a leader's gate: {@code taken}, {@code refused} (the gate
   * said no or closed), {@code unreachable} (no connection or answer in time) or {@code abandoned}
   * (another holder became known while it waited).
   */
  public void relayAttempt(int port, String result) {
    count("relay_attempts_total{port=\"" + port + "\",result=\"" + result + "\"}", 1);
  }

  public void gateEnded(int port) {
    openConnections.computeIfAbsent(port, p -> new LongAdder()).decrement();
  }

  /** One lock request: acquire, renew, release or state, and its HTTP status. */
  public void lockRequest(String operation, int status) {
    count("lock_requests_total{operation=\"" + operation + "\",status=\"" + status + "\"}", 1);
  }

  private void count(String series, long n) {
    counters.computeIfAbsent(series, s -> new LongAdder()).add(n);
  }

  /** The text for {@code /metrics}. */
  public String scrape() {
    StringBuilder out = new StringBuilder();
    leadershipSeries(out);
    RedisHealth r = redis;
    if (r != null) {
      redisSeries(out, r);
    }
    gateSeries(out);
    return out.toString();
  }

  /** This pod's leadership and the watch of it. */
  private void leadershipSeries(StringBuilder out) {
    LeadershipView v = leadership.get();
    gauge(
        out,
        "leader",
        "1 while this pod leads and its gates are open",
        v != null && v.leader() ? 1 : 0);
    gauge(
        out,
        "term",
        "the term this pod leads with, 0 while it does not lead",
        v == null || v.term() == null ? 0 : v.term());
    gauge(
        out,
        "pod_ready",
        "1 while this pod, as last seen, is ready as the operator counts it",
        podReady.getAsBoolean() ? 1 : 0);
    BatonLeadership.WatchState watch = podWatchState.get();
    gauge(
        out,
        "pod_watch_open",
        "1 while the watch of this pod is open; 0: a demotion is learned from the next read only",
        watch == BatonLeadership.WatchState.OPEN ? 1 : 0);
    podWatchState(out, watch);
    counter(
        out,
        "pod_watch_failures_total",
        "watches of this pod that failed or were refused",
        podWatchFailures.getAsLong());
  }

  /** What the agent knows of the gate key's Redis. */
  private static void redisSeries(StringBuilder out, RedisHealth r) {
    gauge(out, "redis_up", "1 while Redis answered the agent's last call", r.up());
    gauge(
        out,
        "redis_evicts_gate_key",
        "1 when the Redis node of the gate key may evict it (maxmemory with an eviction"
            + " policy), 0 when it cannot, -1 when unknown (INFO not permitted)",
        r.evictsGateKey());
    gauge(
        out,
        "redis_aof_enabled",
        "1 when the gate key's node appends every write to its AOF, 0 when not, -1 unknown",
        r.aofEnabled());
    gauge(
        out,
        "redis_rdb_saves",
        "RDB snapshots the gate key's node made since it started, -1 unknown",
        r.rdbSaves());
    gauge(
        out,
        "redis_master",
        "1 when the gate key's node is a master, 0 a replica, -1 unknown",
        r.master());
    gauge(
        out,
        "redis_replicas",
        "replicas connected to the gate key's node, -1 unknown",
        r.replicas());
    gauge(
        out,
        "redis_min_replicas_good",
        "replicas good for min-replicas-to-write on the gate key's node, -1 when it is not set",
        r.goodReplicas());
    counter(
        out,
        "redis_clock_steps_total",
        "steps of Redis's clock seen against the agent's monotonic clock",
        r.clockSteps());
    counter(
        out,
        "redis_incarnations_seen_total",
        "times Redis answered as another incarnation (a restart, a promoted replica)",
        r.incarnationsSeen());
  }

  /** The gates' connections open now, then every counter by name. */
  private void gateSeries(StringBuilder out) {
    out.append("# HELP ")
        .append(PREFIX)
        .append("gate_connections_open connections forwarded now\n# TYPE ")
        .append(PREFIX)
        .append("gate_connections_open gauge\n");
    new TreeMap<>(openConnections)
        .forEach(
            (port, n) ->
                out.append(PREFIX)
                    .append("gate_connections_open{port=\"")
                    .append(port)
                    .append("\"} ")
                    .append(Math.max(0, n.sum()))
                    .append('\n'));
    Map<String, Long> sorted = new TreeMap<>();
    counters.forEach((k, a) -> sorted.put(k, a.sum()));
    String lastName = null;
    for (var e : sorted.entrySet()) {
      String name = e.getKey().substring(0, e.getKey().indexOf('{'));
      if (!name.equals(lastName)) {
        out.append("# TYPE ").append(PREFIX).append(name).append(" counter\n");
        lastName = name;
      }
      out.append(PREFIX).append(e.getKey()).append(' ').append(e.getValue()).append('\n');
    }
  }

  /**
   * One series per state, 1 for the state the watch is in: opening (not open yet, the pod read
   * often), open, broken (no answer, the pod read often), refused (a 4xx or 5xx, reads at their
   * usual pace), so an alert can tell a network that drops the first connection from missing RBAC.
   */
  private static void podWatchState(StringBuilder out, BatonLeadership.WatchState now) {
    String name = PREFIX + "pod_watch_state";
    out.append("# HELP ")
        .append(name)
        .append(" 1 for the state the watch of this pod is in: opening, open, broken, refused\n")
        .append("# TYPE ")
        .append(name)
        .append(" gauge\n");
    for (BatonLeadership.WatchState s : BatonLeadership.WatchState.values()) {
      out.append(name)
          .append("{state=\"")
          .append(s.name().toLowerCase(java.util.Locale.ROOT))
          .append("\"} ")
          .append(s == now ? 1 : 0)
          .append('\n');
    }
  }

  private static void counter(StringBuilder out, String name, String help, long value) {
    out.append("# HELP ").append(PREFIX).append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(PREFIX).append(name).append(" counter\n");
    out.append(PREFIX).append(name).append(' ').append(value).append('\n');
  }

  private static void gauge(StringBuilder out, String name, String help, long value) {
    out.append("# HELP ").append(PREFIX).append(name).append(' ').append(help).append('\n');
    out.append("# TYPE ").append(PREFIX).append(name).append(" gauge\n");
    out.append(PREFIX).append(name).append(' ').append(value).append('\n');
  }
}
