package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart's alerts evaluated by Prometheus's own rule engine ({@code promtool test rules}, from
 * Debian's prometheus package, which .ci/run installs): each fires on the series the operator
 * exports in the state it is meant for, and not before its {@code for:} has passed.
 */
class AlertRulesTest {

  private static final ObjectMapper YAML = new YAMLMapper();

  /**
   * Series as the operator exports them: namespace, pod and service are the scrape's labels, as a
   * ServiceMonitor sets them; the second group has a PodMonitor's (no service) and another
   * release's operator in the same namespace, which must not stand in for this one.
   */
  private static final String TESTS =
      """
      rule_files: [rules.yaml]
      evaluation_interval: 15s
      tests:
        - interval: 15s
          input_series:
            # payments loses its leader after 30 s
            - series: 'baton_leadergroup_condition{namespace="shop",group="payments",type="Ready"}'
              values: '1 1 0x12'
            - series: 'baton_leadergroup_condition{namespace="shop",group="payments",type="SplitBrainSuspected"}'
              values: '0 0 0 1x10'
            - series: 'baton_leadergroup_condition{namespace="shop",group="payments",type="Routed"}'
              values: '1 0x12'
            - series: 'baton_leadergroup_condition{namespace="shop",group="payments",type="RedisAvailable"}'
              values: '1x3 0x10'
            # the only operator replica stops being active after a minute
            - series: 'baton_operator_active{namespace="baton-system",service="baton-baton-operator-metrics",pod="baton-baton-operator-6f7c9d8b5-x2k4q",job="baton-baton-operator-metrics"}'
              values: '1x4 0x10'
            # a lock whose holder died 0 s, then 40 s ago, with a 30 s ttl
            - series: 'baton_lock_dead_holder_seconds{namespace="shop",lock="nightly"}'
              values: '0 0 40 55'
            - series: 'baton_lock_ttl_seconds{namespace="shop",lock="nightly"}'
              values: '30x4'
          alert_rule_test:
            - {eval_time: 45s, alertname: BatonNoLeader, exp_alerts: []}
            - eval_time: 2m
              alertname: BatonNoLeader
              exp_alerts:
                - exp_labels: {severity: critical, namespace: shop, group: payments, type: Ready}
                  exp_annotations:
                    summary: "LeaderGroup shop/payments has had no leader for over a minute"
                    description: "Ready is False: no pod of the group holds the lease. kubectl -n shop get lg payments -o wide shows why."
            - {eval_time: 30s, alertname: BatonSplitBrainSuspected, exp_alerts: []}
            - eval_time: 45s
              alertname: BatonSplitBrainSuspected
              exp_alerts:
                - exp_labels: {severity: critical, namespace: shop, group: payments, type: SplitBrainSuspected}
                  exp_annotations:
                    summary: "LeaderGroup shop/payments: Redis, the pod labels and the leader Service disagree"
                    description: "SplitBrainSuspected is True; its message names the three views. Two pods may be taking writes."
            - {eval_time: 1m, alertname: BatonRoutingNotConverged, exp_alerts: []}
            - eval_time: 2m30s
              alertname: BatonRoutingNotConverged
              exp_alerts:
                - exp_labels: {severity: warning, namespace: shop, group: payments, type: Routed}
                  exp_annotations:
                    summary: "LeaderGroup shop/payments: its leader Service does not list exactly the leader"
                    description: "Routed is False for over 2 minutes: clients of the leader Service reach no pod, or the old leader."
            - eval_time: 2m
              alertname: BatonRedisUnavailable
              exp_alerts:
                - exp_labels: {severity: critical, namespace: shop, group: payments, type: RedisAvailable}
                  exp_annotations:
                    summary: "LeaderGroup shop/payments cannot reach its Redis"
                    description: "RedisAvailable is False: the operator fails static (labels kept, nobody new elected) until Redis answers."
            - {eval_time: 1m, alertname: BatonNoActiveOperator, exp_alerts: []}
            - eval_time: 2m30s
              alertname: BatonNoActiveOperator
              exp_alerts:
                - exp_labels: {severity: critical}
                  exp_annotations:
                    summary: "No active Baton operator replica in baton-system for over a minute"
                    description: "Nobody moves leadership or renews leases; leases lapse after their ttl."
            - {eval_time: 15s, alertname: BatonLockHeldByDeadHolder, exp_alerts: []}
            - eval_time: 30s
              alertname: BatonLockHeldByDeadHolder
              exp_alerts:
                - exp_labels: {severity: warning, namespace: shop, lock: nightly}
                  exp_annotations:
                    summary: "RedisLock shop/nightly is held by a dead holder past its ttl"
                    description: "The pod named by the lock's value is gone, yet the lock has been held longer than its ttl since: nobody else can take it."
        - interval: 15s
          input_series:
            - series: 'baton_operator_active{namespace="baton-system",pod="baton-baton-operator-6f7c9d8b5-x2k4q",container="operator",job="baton-system/baton-baton-operator"}'
              values: '1x4 0x10'
            - series: 'baton_operator_active{namespace="baton-system",pod="baton-baton-operator-6f7c9d8b5-q8n2m",container="operator",job="baton-system/baton-baton-operator"}'
              values: '0x14'
            - series: 'baton_operator_active{namespace="baton-system",pod="team-b-baton-operator-5d8c7b9f4-k2j4x",container="operator",job="baton-system/team-b-baton-operator"}'
              values: '1x14'
          alert_rule_test:
            - {eval_time: 1m, alertname: BatonNoActiveOperator, exp_alerts: []}
            - eval_time: 2m30s
              alertname: BatonNoActiveOperator
              exp_alerts:
                - exp_labels: {severity: critical}
                  exp_annotations:
                    summary: "No active Baton operator replica in baton-system for over a minute"
                    description: "Nobody moves leadership or renews leases; leases lapse after their ttl."
      """;

  @Test
  void eachAlertFiresOnTheStateItIsFor(@TempDir Path dir) throws Exception {
    Path promtool = Path.of("/usr/bin/promtool");
    assumeTrue(
        Files.isExecutable(promtool) || onPath("promtool"),
        "promtool is not installed (apt-get install prometheus; .ci/run does)");
    List<HasMetadata> objects =
        HelmChart.render(
            """
            prometheusRule: {enabled: true}
            """);
    GenericKubernetesResource rule =
        (GenericKubernetesResource)
            objects.stream()
                .filter(o -> o.getKind().equals("PrometheusRule"))
                .findFirst()
                .orElseThrow();
    Object groups = ((Map<?, ?>) rule.getAdditionalProperties().get("spec")).get("groups");
    Files.writeString(dir.resolve("rules.yaml"), YAML.writeValueAsString(Map.of("groups", groups)));
    Files.writeString(dir.resolve("tests.yaml"), TESTS);

    Process p =
        new ProcessBuilder("promtool", "test", "rules", "tests.yaml")
            .directory(dir.toFile())
            .redirectErrorStream(true)
            .start();
    assertThat(p.waitFor(1, TimeUnit.MINUTES)).isTrue();
    String output = new String(p.getInputStream().readAllBytes());
    assertThat(p.exitValue()).as(output).isZero();
    assertThat(output).contains("SUCCESS");
  }

  private static boolean onPath(String program) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, program))) {
        return true;
      }
    }
    return false;
  }
}
