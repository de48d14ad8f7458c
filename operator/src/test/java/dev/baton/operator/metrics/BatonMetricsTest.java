package dev.baton.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Baton's per-group and per-lock series: what they say, and that they go with their resource. */
class BatonMetricsTest {

  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final BatonMetrics metrics = new BatonMetrics(registry);

  private static Condition condition(String type, String status) {
    return new ConditionBuilder().withType(type).withStatus(status).build();
  }

  private Double conditionValue(String group, String type) {
    var gauge =
        registry
            .find(BatonMetrics.CONDITION)
            .tags("namespace", "shop", "group", group, "type", type)
            .gauge();
    return gauge == null ? null : gauge.value();
  }

  @Test
  void conditionsAreOneForTrueZeroForFalseAndAbsentWhileUnknown() {
    metrics.conditions(
        "shop",
        "payments",
        List.of(
            condition("Ready", "True"),
            condition("Routed", "Unknown"),
            condition("RedisAvailable", "False"),
            condition("SplitBrainSuspected", "False"),
            condition("Conflict", "False")));

    assertThat(conditionValue("payments", "Ready")).isEqualTo(1.0);
    assertThat(conditionValue("payments", "RedisAvailable")).isEqualTo(0.0);
    assertThat(conditionValue("payments", "SplitBrainSuspected")).isEqualTo(0.0);
    assertThat(conditionValue("payments", "Routed")).as("Unknown").isNull();
    assertThat(conditionValue("payments", "Conflict")).as("not exported").isNull();

    metrics.conditions(
        "shop", "payments", List.of(condition("Ready", "False"), condition("Routed", "True")));
    assertThat(conditionValue("payments", "Ready")).isEqualTo(0.0);
    assertThat(conditionValue("payments", "Routed")).isEqualTo(1.0);
    assertThat(conditionValue("payments", "RedisAvailable")).as("gone from the status").isNull();
  }

  @Test
  void aDeletedGroupsSeriesAreAllRemovedAndOthersStay() {
    for (String g : List.of("payments", "pay")) {
      metrics.leaderChanged("shop", g, "Initial");
      metrics.leaderChanged("shop", g, "LeaderDeleted");
      metrics.failover("shop", g, Duration.ofMillis(20));
      metrics.routingConverged("shop", g, Duration.ofMillis(200));
      metrics.groupState("shop", g, 2, 3);
      metrics.conditions("shop", g, List.of(condition("Ready", "True")));
    }

    metrics.forgetGroup("shop", "pay");

    assertThat(registry.getMeters())
        .filteredOn(m -> m.getId().getTag("group") != null)
        .allSatisfy(m -> assertThat(m.getId().getTag("group")).isEqualTo("payments"))
        .extracting(m -> m.getId().getName())
        // The simple registry shows a timer's buckets as gauges of its own; Prometheus does not.
        .filteredOn(name -> !name.endsWith(".histogram"))
        .containsExactlyInAnyOrder(
            BatonMetrics.LEADER_CHANGES,
            BatonMetrics.LEADER_CHANGES,
            BatonMetrics.ROUTING_CONVERGENCE,
            BatonMetrics.TERM,
            BatonMetrics.CANDIDATES,
            BatonMetrics.CONDITION);
    // A recreated group starts over, with gauges that report again.
    metrics.groupState("shop", "pay", 1, 1);
    assertThat(registry.find(BatonMetrics.TERM).tags("group", "pay").gauge().value())
        .isEqualTo(1.0);
  }

  @Test
  void histogramsHaveFixedBucketsNotPercentileOnes() {
    metrics.failover("shop", "payments", Duration.ofMillis(20));
    metrics.routingConverged("shop", "payments", Duration.ofMillis(200));

    var failover = registry.find(BatonMetrics.FAILOVER).timer();
    assertThat(failover.getId().getTag("group")).as("per namespace, not per group").isNull();
    assertThat(failover.takeSnapshot().histogramCounts()).hasSize(12);
    assertThat(
            registry
                .find(BatonMetrics.ROUTING_CONVERGENCE)
                .timer()
                .takeSnapshot()
                .histogramCounts())
        .hasSize(3);
  }

  @Test
  void aLocksDeadHolderTimeAndTtlAreExportedAndRemovedWithTheLock() {
    metrics.lockHolder("shop", "nightly", Duration.ofSeconds(30), Duration.ofSeconds(45));

    assertThat(registry.find(BatonMetrics.LOCK_TTL).tags("lock", "nightly").gauge().value())
        .isEqualTo(30.0);
    assertThat(registry.find(BatonMetrics.LOCK_DEAD_HOLDER).tags("lock", "nightly").gauge().value())
        .isEqualTo(45.0);

    metrics.forgetGroup("shop", "lock");
    assertThat(registry.find(BatonMetrics.LOCK_TTL).tags("lock", "nightly").gauge())
        .as("a group named lock is another thing")
        .isNotNull();
    metrics.lockHolder("shop", "nightly", Duration.ofSeconds(30), Duration.ofSeconds(50));
    assertThat(registry.find(BatonMetrics.LOCK_DEAD_HOLDER).tags("lock", "nightly").gauge().value())
        .isEqualTo(50.0);

    metrics.forgetLock("shop", "nightly");
    assertThat(registry.getMeters())
        .extracting(Meter::getId)
        .noneMatch(id -> "nightly".equals(id.getTag("lock")));
  }
}
