package dev.baton.operator.metrics;

import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisConnectionRef;
import dev.baton.operator.config.OperatorConfig;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.CapturedOutput;
import dev.baton.testkit.LocalRedis;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Metrics, probes, and secrets that never show: against real Redis and the mock API server. */
class ObservabilityIT {

  private static final String ROLE = BatonCluster.ROLE;

  @Test
  void metricsCountElectionsAndFailoversAndProbesAnswer() throws Exception {
    try (BatonCluster cluster = new BatonCluster()) {
      String leader = cluster.startGroup("payments", 3);
      cluster.deletePod(leader);
      await()
          .atMost(WAIT)
          .until(
              () -> cluster.leaders(ROLE).size() == 1 && !cluster.leaders(ROLE).contains(leader));

      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                String metrics = cluster.metrics();
                assertThat(metrics)
                    .contains(
                        "baton_leader_changes_total{group=\"payments\",namespace=\"shop\","
                            + "reason=\"Initial\"} 1.0")
                    .contains(
                        "baton_leader_changes_total{group=\"payments\",namespace=\"shop\","
                            + "reason=\"LeaderDeleted\"} 1.0")
                    .contains("baton_failover_duration_seconds_count{namespace=\"shop\"} 1")
                    .contains("baton_failover_duration_seconds_bucket")
                    .contains("baton_leadergroup_term{group=\"payments\",namespace=\"shop\"} 2.0")
                    .contains(
                        "baton_leadergroup_condition{group=\"payments\",namespace=\"shop\","
                            + "type=\"Ready\"} 1.0")
                    .contains(
                        "baton_leadergroup_ready_candidates{group=\"payments\",namespace=\"shop\"}"
                            + " 2.0")
                    .contains("baton_redis_script_duration_seconds_count{script=\"lease-acquire\"}")
                    // Java Operator SDK's own reconcile metrics.
                    .contains("operator_sdk_reconciliations_executions");
              });
      HttpResponse<String> health = cluster.httpGet("/healthz");
      assertThat(health.statusCode()).isEqualTo(200);
      assertThat(health.body()).startsWith("ok: alive");
      HttpResponse<String> ready = cluster.httpGet("/readyz");
      assertThat(ready.statusCode()).isEqualTo(200);
      assertThat(ready.body()).contains("informers synced").contains("Redis answering");

      cluster.redis.kill();
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                assertThat(cluster.httpGet("/readyz").body()).contains("failing static");
                assertThat(cluster.metrics())
                    // The renewer's batch, and the reconcile's read of the lease.
                    .contains("baton_redis_script_errors_total{script=\"lease-renew-many\"}")
                    .contains("baton_redis_script_errors_total{script=\"lease-observe\"}");
              });
      // The JVM's own meters; a GC makes the pause timer appear (it is created on the first one).
      System.gc();
      await()
          .atMost(WAIT)
          .untilAsserted(
              () ->
                  assertThat(cluster.metrics())
                      .contains("jvm_memory_used_bytes{area=\"heap\"")
                      .contains("jvm_gc_pause_seconds_count")
                      .contains("jvm_gc_live_data_size_bytes")
                      .contains("jvm_threads_live_threads")
                      .contains("process_cpu_usage")
                      .contains("process_uptime_seconds"));
      // The Grafana dashboard in examples/ asks only for metrics the operator exports.
      String scrape = cluster.metrics();
      String dashboard =
          java.nio.file.Files.readString(
              java.nio.file.Path.of("../examples/grafana-dashboard.json"));
      java.util.regex.Matcher names =
          java.util.regex.Pattern.compile("\\b((?:baton|operator_sdk|jvm|process)_[a-z_]+)")
              .matcher(dashboard);
      java.util.Set<String> lockMetrics =
          java.util.Set.of(
              BatonMetrics.LOCK_ACQUISITIONS,
              BatonMetrics.LOCK_RELEASES,
              BatonMetrics.LOCK_REAPS,
              BatonMetrics.LOCK_CONTENTION,
              // created at the first convergence; RoutingIT reads it
              BatonMetrics.ROUTING_CONVERGENCE + "_seconds_bucket");
      int checked = 0;
      while (names.find()) {
        String name = names.group(1);
        checked++;
        if (lockMetrics.contains(name.replaceAll("_total$", ""))) {
          continue; // created once a lock does something, or routing converges
        }
        assertThat(scrape).as("the dashboard's metric %s is exported", name).contains(name);
      }
      assertThat(checked).isGreaterThan(10);
    }
  }

  @Test
  void passwordsNeverReachLogsStatusEventsOrMetrics() throws Exception {
    String operatorPassword = "Op3rator-Pw-7f3a9";
    String groupPassword = "Gr0up-Pw-b41c2";
    String wrongPassword = "Wr0ng-Pw-e88d1";
    try (CapturedOutput output = new CapturedOutput();
        LocalRedis secured = LocalRedis.start("--requirepass", operatorPassword);
        BatonCluster cluster = new BatonCluster()) {
      cluster
          .env(OperatorConfig.REDIS_URL, secured.url())
          .env(OperatorConfig.REDIS_PASSWORD, operatorPassword)
          .env("BATON_LOG_LEVEL", "debug");
      for (int i = 0; i < 2; i++) {
        cluster.createPod("payments-" + i, "payments");
        cluster.createPod("orders-" + i, "orders");
        cluster.createPod("billing-" + i, "billing");
      }
      cluster.createRedisSecret(
          "orders-redis",
          Map.of(
              "url",
              secured.url().replace("redis://", "redis://:" + groupPassword + "@"),
              "password",
              groupPassword));
      cluster.createRedisSecret(
          "billing-redis", Map.of("url", secured.url(), "password", wrongPassword));
      cluster.startOperator();
      cluster.create(Sandbox.group("payments", "payments"));
      LeaderGroup orders = Sandbox.group("orders", "orders");
      orders.getSpec().setRedis(new RedisConnectionRef("orders-redis"));
      cluster.create(orders);
      LeaderGroup billing = Sandbox.group("billing", "billing");
      billing.getSpec().setRedis(new RedisConnectionRef("billing-redis"));
      cluster.create(billing);

      // The operator's own password works; a wrong one is reported without being shown.
      cluster.awaitLeader("payments", ROLE);
      cluster.awaitCondition(
          List.of("billing", "orders"), "RedisAvailable", c -> c.hasStatus("False"));

      StringBuilder everything = new StringBuilder(output.text());
      for (String g : new String[] {"payments", "orders", "billing"}) {
        everything.append(Serialization.asYaml(cluster.get(g)));
      }
      everything.append(Serialization.asYaml(cluster.client.v1().events().inNamespace(NS).list()));
      everything.append(cluster.metrics());
      everything.append(cluster.httpGet("/readyz").body());
      assertThat(everything.toString())
          .as("a password in logs, status, Events or metrics")
          .doesNotContain(operatorPassword)
          .doesNotContain(groupPassword)
          .doesNotContain(wrongPassword)
          .contains("LeaderGroup shop/payments: payments-0 leads with term 1");
    }
  }
}
