package dev.baton.operator.metrics;

import dev.baton.api.v1alpha1.ConditionType;
import dev.baton.operator.lease.RedisLeaseStore;
import io.fabric8.kubernetes.api.model.Condition;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/** Baton's meters. Every name starts with {@value #PREFIX}. */
public class BatonMetrics {

  public static final String PREFIX = "baton_";
  public static final String LEADER_CHANGES = PREFIX + "leader_changes";
  public static final String FAILOVER = PREFIX + "failover_duration";
  public static final String ROUTING_CONVERGENCE = PREFIX + "routing_convergence";
  public static final String TERM = PREFIX + "leadergroup_term";
  public static final String CANDIDATES = PREFIX + "leadergroup_ready_candidates";
  public static final String CONDITION = PREFIX + "leadergroup_condition";
  public static final String LOCK_CONDITION = PREFIX + "redislock_condition";
  public static final String LOCK_ACQUISITIONS = PREFIX + "lock_acquisitions";
  public static final String LOCK_RELEASES = PREFIX + "lock_releases";
  public static final String LOCK_REAPS = PREFIX + "lock_reaps";
  public static final String LOCK_CONTENTION = PREFIX + "lock_contention";
  public static final String LOCK_TTL = PREFIX + "lock_ttl_seconds";
  public static final String LOCK_DEAD_HOLDER = PREFIX + "lock_dead_holder_seconds";
  public static final String REDIS_SCRIPT = PREFIX + "redis_script_duration";
  public static final String REDIS_ERRORS = PREFIX + "redis_script_errors";
  public static final String ACTIVE_REPLICA = PREFIX + "operator_active";
  public static final String OTHER_ACTIVE_REPLICA = PREFIX + "operator_other_active_replica";
  public static final String CACHED_PODS = PREFIX + "cached_pods";
  public static final String AGENT_PODS = PREFIX + "leadergroup_agent_pods";

  /**
   * The buckets of every histogram without a group label: what Baton does spans a Redis round trip
   * (a few ms) to a slow failover or Redis timeout (seconds). Micrometer's percentile histogram
   * would publish about 70 buckets per series instead.
   */
  static final Duration[] BUCKETS = {
    Duration.ofMillis(5),
    Duration.ofMillis(10),
    Duration.ofMillis(25),
    Duration.ofMillis(50),
    Duration.ofMillis(100),
    Duration.ofMillis(250),
    Duration.ofMillis(500),
    Duration.ofSeconds(1),
    Duration.ofMillis(2500),
    Duration.ofSeconds(5),
    Duration.ofSeconds(10),
    Duration.ofSeconds(30)
  };

  /**
   * The buckets of the one histogram per group, routing convergence: few, because every bucket is a
   * series for each of a thousand groups. They answer what on-call asks: converged within 100 ms
   * (one-write routing, a healthy EndpointSlice controller), within 1 s, within 10 s (past which
   * the operator warns), or later (+Inf).
   */
  static final Duration[] ROUTING_BUCKETS = {
    Duration.ofMillis(100), Duration.ofSeconds(1), Duration.ofSeconds(10)
  };

  /** The conditions exported as {@link #CONDITION}: what an alert needs, nothing more. */
  static final List<String> EXPORTED_CONDITIONS =
      Stream.of(
              ConditionType.Ready,
              ConditionType.Routed,
              ConditionType.RedisAvailable,
              ConditionType.SplitBrainSuspected)
          .map(ConditionType::name)
          .toList();

  /** The lock conditions exported as {@link #LOCK_CONDITION}. */
  static final List<String> EXPORTED_LOCK_CONDITIONS =
      Stream.of(ConditionType.Ready, ConditionType.RedisAvailable, ConditionType.QuorumLost)
          .map(ConditionType::name)
          .toList();

  private final MeterRegistry registry;
  private final Map<String, AtomicLong> gauges = new ConcurrentHashMap<>();

  public BatonMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  public MeterRegistry registry() {
    return registry;
  }

  public void leaderChanged(String namespace, String group, String reason) {
    Counter.builder(LEADER_CHANGES)
        .description("Leader elections, by group and reason")
        .tags(Tags.of("namespace", namespace, "group", group, "reason", reason))
        .register(registry)
        .increment();
  }

  /**
   * From the moment the operator learned the leader was gone to the new leader labeled. By
   * namespace, not by group: a group fails over rarely, so a per-group distribution would be
   * buckets of zeros; which group failed over is in {@link #LEADER_CHANGES}.
   */
  public void failover(String namespace, String group, Duration took) {
    Timer.builder(FAILOVER)
        .description("Time from learning the leader was gone to the new leader labeled")
        .tags(Tags.of("namespace", namespace))
        .serviceLevelObjectives(BUCKETS)
        .register(registry)
        .record(took);
  }

  /**
   * From the new leader labeled (or its endpoint written) to every leader Service listing exactly
   * it as a ready endpoint: what the EndpointSlice controller, or Baton's own write, added.
   */
  public void routingConverged(String namespace, String group, Duration took) {
    Timer.builder(ROUTING_CONVERGENCE)
        .description(
            "Time from a leader change to every leader Service listing exactly the new leader")
        .tags(Tags.of("namespace", namespace, "group", group))
        .serviceLevelObjectives(ROUTING_BUCKETS)
        .register(registry)
        .record(took);
  }

  public void groupState(String namespace, String group, long term, int readyCandidates) {
    groupGauge(TERM, namespace, group, "Current fencing term").set(term);
    groupGauge(CANDIDATES, namespace, group, "Ready candidate pods").set(readyCandidates);
  }

  /**
   * Counts a lock event: {@link #LOCK_ACQUISITIONS}, {@link #LOCK_RELEASES}, {@link #LOCK_REAPS} (a
   * dead holder's lock deleted before its ttl) or {@link #LOCK_CONTENTION} (an acquire that found
   * the lock taken).
   */
  public void lock(String name, String namespace, String lock) {
    Counter.builder(name)
        .tags(Tags.of("namespace", namespace, "lock", lock))
        .register(registry)
        .increment();
  }

  /**
   * The pods the operator caches, by form: whole (a skeleton: selected by a group or lock, or
   * marked by Baton) or compact (every other pod of the watched namespaces).
   */
  public void cachedPods(IntSupplier whole, IntSupplier compact) {
    io.micrometer.core.instrument.Gauge.builder(CACHED_PODS, whole::getAsInt)
        .description("Pods in the operator's cache, by form")
        .tag("form", "whole")
        .register(registry);
    io.micrometer.core.instrument.Gauge.builder(CACHED_PODS, compact::getAsInt)
        .description("Pods in the operator's cache, by form")
        .tag("form", "compact")
        .register(registry);
  }

  /** 1 while this replica is the active one, 0 while it stands by. */
  public void activeReplica(boolean active) {
    replicaGauge(ACTIVE_REPLICA, "1 while this operator replica is the active one")
        .set(active ? 1 : 0);
  }

  /**
   * 1 while another replica is active for the same cluster id although leader election is off (a
   * misconfigured install): this one stands by.
   */
  public void otherActiveReplica(boolean found) {
    replicaGauge(
            OTHER_ACTIVE_REPLICA,
            "1 while another replica is active with leader election off; this one stands by")
        .set(found ? 1 : 0);
  }

  private AtomicLong replicaGauge(String name, String description) {
    return gauge(name, name, Tags.empty(), description);
  }

  /**
   * A lock's ttl, and how long its holder has been known dead while still holding it (0 while the
   * holder lives, or the lock is free): an alert compares the two.
   */
  public void lockHolder(String namespace, String lock, Duration ttl, Duration deadHolder) {
    lockGauge(LOCK_TTL, namespace, lock, "The lock's spec.ttl").set(ttl.toMillis());
    lockGauge(
            LOCK_DEAD_HOLDER,
            namespace,
            lock,
            "How long the lock's holder has been known dead (its pod gone) while still holding it")
        .set(deadHolder.toMillis());
  }

  /** A lock's gauge of milliseconds, published in seconds. */
  private AtomicLong lockGauge(String name, String namespace, String lock, String description) {
    return gauge(
        "lock|" + name + "|" + namespace + "|" + lock,
        name,
        Tags.of("namespace", namespace, "lock", lock),
        description,
        millis -> millis.get() / 1000.0);
  }

  /** Removes a deleted lock's series, so they do not pile up with every lock ever made. */
  public void forgetLock(String namespace, String lock) {
    gauges
        .keySet()
        .removeIf(k -> k.startsWith("lock|") && k.endsWith("|" + namespace + "|" + lock));
    for (String name :
        new String[] {
          LOCK_ACQUISITIONS,
          LOCK_RELEASES,
          LOCK_REAPS,
          LOCK_CONTENTION,
          LOCK_TTL,
          LOCK_DEAD_HOLDER,
          LOCK_CONDITION
        }) {
      removeSeries(name, Tags.of("namespace", namespace, "lock", lock));
    }
  }

  /**
   * A group's conditions as {@link #CONDITION}{type}: 1 True, 0 False; absent while Unknown (such
   * as Routed when no Service routes to the leader), so that an alert on 0 never fires for it.
   */
  public void conditions(String namespace, String group, List<Condition> conditions) {
    for (String type : EXPORTED_CONDITIONS) {
      condition(
          CONDITION + "|" + namespace + "|" + group + "|" + type,
          Tags.of("namespace", namespace, "group", group, "type", type),
          CONDITION,
          "A LeaderGroup's condition: 1 True, 0 False, absent while Unknown",
          status(conditions, type));
    }
  }

  /** A lock's conditions as {@link #LOCK_CONDITION}{type}, as {@link #conditions} for groups. */
  public void lockConditions(String namespace, String lock, List<Condition> conditions) {
    for (String type : EXPORTED_LOCK_CONDITIONS) {
      condition(
          "lock|" + LOCK_CONDITION + ":" + type + "|" + namespace + "|" + lock,
          Tags.of("namespace", namespace, "lock", lock, "type", type),
          LOCK_CONDITION,
          "A RedisLock's condition: 1 True, 0 False, absent while Unknown or not set",
          status(conditions, type));
    }
  }

  private static String status(List<Condition> conditions, String type) {
    return conditions == null
        ? null
        : conditions.stream()
            .filter(c -> type.equals(c.getType()))
            .map(Condition::getStatus)
            .findFirst()
            .orElse(null);
  }

  private void condition(String key, Tags tags, String name, String description, String status) {
    if ("True".equals(status) || "False".equals(status)) {
      gauge(key, name, tags, description).set("True".equals(status) ? 1 : 0);
    } else if (gauges.remove(key) != null) {
      removeSeries(name, tags);
    }
  }

  /** Removes a deleted group's series, so they do not pile up with every group ever made. */
  public void forgetGroup(String namespace, String group) {
    for (String name : new String[] {LEADER_CHANGES, ROUTING_CONVERGENCE}) {
      removeSeries(name, Tags.of("namespace", namespace, "group", group));
    }
    String ofGroup = "|" + namespace + "|" + group;
    // Lock gauges have keys of their own: a group and a lock may share a name.
    gauges
        .keySet()
        .removeIf(
            k -> !k.startsWith("lock|") && (k.endsWith(ofGroup) || k.contains(ofGroup + "|")));
    for (String name : new String[] {TERM, CANDIDATES, CONDITION, AGENT_PODS}) {
      removeSeries(name, Tags.of("namespace", namespace, "group", group));
    }
  }

  private AtomicLong groupGauge(String name, String namespace, String group, String description) {
    return gauge(
        name + "|" + namespace + "|" + group,
        name,
        Tags.of("namespace", namespace, "group", group),
        description);
  }

  /**
   * A group's pods that ask for the agent, by state: {@code missing} (running without it) and
   * {@code outdated} (another image than the operator's); no series for a group without such pods.
   */
  public void agentPods(String namespace, String group, Integer missing, Integer outdated) {
    for (String state : new String[] {"missing", "outdated"}) {
      Integer value = state.equals("missing") ? missing : outdated;
      String key = AGENT_PODS + ":" + state + "|" + namespace + "|" + group;
      Tags tags = Tags.of("namespace", namespace, "group", group, "state", state);
      if (value == null) {
        if (gauges.remove(key) != null) {
          removeSeries(AGENT_PODS, tags);
        }
        continue;
      }
      gauge(
              key,
              AGENT_PODS,
              tags,
              "Pods of a LeaderGroup that ask for the agent and run without it (missing)"
                  + " or with another image than the operator's (outdated)")
          .set(value);
    }
  }

  private AtomicLong gauge(String key, String name, Tags tags, String description) {
    return gauge(key, name, tags, description, AtomicLong::doubleValue);
  }

  /**
   * The value behind the gauge kept under {@code key}: registered the first time, as {@code name}
   * with {@code tags}, read through {@code published}; a later call only finds it.
   */
  private AtomicLong gauge(
      String key,
      String name,
      Tags tags,
      String description,
      ToDoubleFunction<AtomicLong> published) {
    return gauges.computeIfAbsent(
        key,
        k -> {
          AtomicLong value = new AtomicLong();
          io.micrometer.core.instrument.Gauge.builder(name, value, published)
              .description(description)
              .tags(tags)
              .register(registry);
          return value;
        });
  }

  private void removeSeries(String name, Tags tags) {
    registry.find(name).tags(tags).meters().forEach(registry::remove);
  }

  /** Times every Redis script and counts its failures. */
  public RedisLeaseStore.ScriptTimer scriptTimer() {
    return (script, nanos, failed) -> {
      if (failed) {
        Counter.builder(REDIS_ERRORS).tag("script", script).register(registry).increment();
      }
      Timer.builder(REDIS_SCRIPT)
          .description("Latency of each Redis Lua script call, one round trip")
          .tag("script", script)
          .serviceLevelObjectives(BUCKETS)
          .register(registry)
          .record(Duration.ofNanos(nanos));
    };
  }
}
