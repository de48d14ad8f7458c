package dev.baton.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.agent.leadership.LeadershipView;
import dev.baton.client.BatonLeadership;
import org.junit.jupiter.api.Test;

/**
 * The exposition /metrics serves: each meter's name, type, help and labels as dashboards, alerts
 * and the plugin's report read them, written by Micrometer's Prometheus registry.
 */
class AgentMetricsTest {

  private final AgentMetrics metrics = new AgentMetrics();

  @Test
  void aNewAgentShowsItsLeadershipAndPodWatchAndNothingElse() {
    assertThat(metrics.scrape())
        .contains(
            "# HELP baton_agent_leader 1 while this pod leads and its gates are open\n"
                + "# TYPE baton_agent_leader gauge\n"
                + "baton_agent_leader 0.0\n")
        .contains(
            "# HELP baton_agent_term the term this pod leads with, 0 while it does not lead\n"
                + "# TYPE baton_agent_term gauge\n"
                + "baton_agent_term 0.0\n")
        .contains(
            "# HELP baton_agent_pod_ready 1 while this pod, as last seen, is ready as the"
                + " operator counts it\n"
                + "# TYPE baton_agent_pod_ready gauge\n"
                + "baton_agent_pod_ready 0.0\n")
        .contains(
            "# HELP baton_agent_pod_watch_open 1 while the watch of this pod is open; 0: a"
                + " demotion is learned from the next read only\n"
                + "# TYPE baton_agent_pod_watch_open gauge\n"
                + "baton_agent_pod_watch_open 0.0\n")
        .contains(
            "# HELP baton_agent_pod_watch_state 1 for the state the watch of this pod is in:"
                + " opening, open, broken, refused\n"
                + "# TYPE baton_agent_pod_watch_state gauge\n")
        .contains("\nbaton_agent_pod_watch_state{state=\"opening\"} 1.0\n")
        .contains("\nbaton_agent_pod_watch_state{state=\"open\"} 0.0\n")
        .contains("\nbaton_agent_pod_watch_state{state=\"broken\"} 0.0\n")
        .contains("\nbaton_agent_pod_watch_state{state=\"refused\"} 0.0\n")
        .contains(
            "# HELP baton_agent_pod_watch_failures_total watches of this pod that failed or were"
                + " refused\n"
                + "# TYPE baton_agent_pod_watch_failures_total counter\n"
                + "baton_agent_pod_watch_failures_total 0.0\n")
        .as("no JVM or process meters, no Redis before the agent has one, no gate before traffic")
        .doesNotContain("jvm_")
        .doesNotContain("process_")
        .doesNotContain("baton_agent_redis_")
        .doesNotContain("baton_agent_gate_")
        .doesNotContain("baton_agent_relay_")
        .doesNotContain("baton_agent_lock_");
  }

  @Test
  void theLeadershipMetersReadTheirValuesAtEachScrape() {
    LeadershipView leading =
        new LeadershipView(true, 7L, "worker-0", "workers", null, "worker-0", 7L, "10.0.0.1");
    metrics.leadership(() -> leading);
    metrics.podReady(() -> true);
    metrics.podWatch(() -> BatonLeadership.WatchState.OPEN, () -> 3);

    assertThat(metrics.scrape())
        .contains("\nbaton_agent_leader 1.0\n")
        .contains("\nbaton_agent_term 7.0\n")
        .contains("\nbaton_agent_pod_ready 1.0\n")
        .contains("\nbaton_agent_pod_watch_open 1.0\n")
        .contains("\nbaton_agent_pod_watch_state{state=\"open\"} 1.0\n")
        .contains("\nbaton_agent_pod_watch_state{state=\"opening\"} 0.0\n")
        .contains("\nbaton_agent_pod_watch_failures_total 3.0\n");

    metrics.podWatch(() -> BatonLeadership.WatchState.REFUSED, () -> 4);
    assertThat(metrics.scrape())
        .contains("\nbaton_agent_pod_watch_open 0.0\n")
        .contains("\nbaton_agent_pod_watch_state{state=\"refused\"} 1.0\n")
        .contains("\nbaton_agent_pod_watch_state{state=\"open\"} 0.0\n")
        .contains("\nbaton_agent_pod_watch_failures_total 4.0\n");
  }

  @Test
  void theGatesRelaysAndLocksAreCountedByTheirLabelsFromTheirFirstUse() {
    metrics.gateAccepted(9000);
    metrics.gateAccepted(9000);
    metrics.gateEnded(9000);
    metrics.gateAccepted(9001);
    metrics.gateRefused(9000);
    metrics.gateBounded(9000, "stalled");
    metrics.gateCut(9000, 3);
    metrics.relay(9000, "relayed");
    metrics.relay(9000, "relayed");
    metrics.relayAttempt(9000, "taken");
    metrics.lockRequest("acquire", 200);
    metrics.lockRequest("acquire", 200);
    metrics.lockRequest("renew", 409);

    assertThat(metrics.scrape())
        .contains(
            "# HELP baton_agent_gate_connections_open connections forwarded now\n"
                + "# TYPE baton_agent_gate_connections_open gauge\n")
        .contains("\nbaton_agent_gate_connections_open{port=\"9000\"} 1.0\n")
        .contains("\nbaton_agent_gate_connections_open{port=\"9001\"} 1.0\n")
        .contains(
            "# TYPE baton_agent_gate_connections_total counter\n"
                + "baton_agent_gate_connections_total{port=\"9000\"} 2.0\n")
        .contains("\nbaton_agent_gate_connections_total{port=\"9001\"} 1.0\n")
        .contains(
            "# TYPE baton_agent_gate_refused_total counter\n"
                + "baton_agent_gate_refused_total{port=\"9000\"} 1.0\n")
        .contains(
            "# TYPE baton_agent_gate_bounded_total counter\n"
                + "baton_agent_gate_bounded_total{bound=\"stalled\",port=\"9000\"} 1.0\n")
        .contains(
            "# TYPE baton_agent_gate_cut_total counter\n"
                + "baton_agent_gate_cut_total{port=\"9000\"} 3.0\n")
        .contains(
            "# TYPE baton_agent_relay_connections_total counter\n"
                + "baton_agent_relay_connections_total{outcome=\"relayed\",port=\"9000\"} 2.0\n")
        .contains(
            "# TYPE baton_agent_relay_attempts_total counter\n"
                + "baton_agent_relay_attempts_total{port=\"9000\",result=\"taken\"} 1.0\n")
        .contains("# TYPE baton_agent_lock_requests_total counter\n")
        .contains("\nbaton_agent_lock_requests_total{operation=\"acquire\",status=\"200\"} 2.0\n")
        .contains("\nbaton_agent_lock_requests_total{operation=\"renew\",status=\"409\"} 1.0\n")
        .as("every counter by label says what it counts")
        .contains("# HELP baton_agent_gate_connections_total connections a gate took and")
        .contains("# HELP baton_agent_relay_attempts_total tries of a relayed connection")
        .contains("# HELP baton_agent_lock_requests_total lock requests to the agent's")
        .doesNotContainPattern("# HELP \\S+ *\n");
  }

  @Test
  void aGateThatEndedMoreThanItAcceptedShowsNoneOpen() {
    metrics.gateEnded(9002);
    assertThat(metrics.scrape())
        .contains("\nbaton_agent_gate_connections_open{port=\"9002\"} 0.0\n")
        .doesNotContain("baton_agent_gate_connections_total");
  }
}
