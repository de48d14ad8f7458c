package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.operator.kube.ConditionType;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.kube.EventRecorder;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.routing.LeaderEndpoints;
import dev.baton.operator.routing.LeaderServices;
import dev.baton.operator.routing.RouteCheck;
import dev.baton.operator.routing.RouteConvergence;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The routing steps of a LeaderGroup reconcile, after the election: write the leader's endpoint
 * when the group owns its Service (spec.service), then check every leader Service's endpoints, time
 * the convergence after a leader change, and report it (docs/design.md, "Routing").
 */
final class GroupRouting {

  private static final Logger log = LoggerFactory.getLogger(GroupRouting.class);

  private final LeaderServices sources;
  private final LeaderEndpoints endpoints;
  private final EventRecorder events;
  private final BatonMetrics metrics;

  GroupRouting(
      LeaderServices sources,
      LeaderEndpoints endpoints,
      EventRecorder events,
      BatonMetrics metrics) {
    this.sources = sources;
    this.endpoints = endpoints;
    this.events = events;
    this.metrics = metrics;
  }

  /**
   * @param candidate the leader after the act step, or null; not ready while a failover is damped
   * @param promoted a new leader was labeled in this reconcile
   * @return when to look again without an event, or null
   */
  Duration route(
      GroupReporter.Report report,
      GroupSettings settings,
      GroupObserver.PodView pods,
      Candidate candidate,
      boolean promoted) {
    LeaderGroup group = report.group;
    Pod leader =
        candidate == null
            ? null
            : pods.membership().members().stream()
                .filter(p -> candidate.uid().equals(p.getMetadata().getUid()))
                .findFirst()
                .orElse(null);
    boolean leaderReady = candidate != null && candidate.eligible();
    String writeProblem = endpoints.apply(group, settings.service(), leader, leaderReady);
    if (promoted) {
      report.state.routing.leaderChanged(System.nanoTime());
    }
    RouteCheck.Verdict verdict =
        RouteCheck.check(
            leader == null
                ? null
                : new RouteCheck.Leader(
                    leader.getMetadata().getName(), leader.getMetadata().getLabels(), leaderReady),
            settings.roleLabel(),
            sources.leaderServices(group, settings.roleLabel(), pods.membership().members()));
    report.routing = verdict.routes().isEmpty() ? null : verdict.routes();
    String ns = group.getMetadata().getNamespace();
    String name = group.getMetadata().getName();
    if (writeProblem != null) {
      if (!writeProblem.equals(report.state.lastRoutingProblem)) {
        events.record(group, EventReason.ServiceProblem, writeProblem);
      }
      report.state.lastRoutingProblem = writeProblem;
      report.conditions.set(ConditionType.Routed, false, "ServiceProblem", writeProblem);
      return null;
    }
    report.state.lastRoutingProblem = null;
    switch (verdict.state()) {
      case NO_SERVICE ->
          report.conditions.unknown(ConditionType.Routed, verdict.reason(), verdict.message());
      case ROUTED ->
          report.conditions.set(ConditionType.Routed, true, verdict.reason(), verdict.message());
      case NOT_ROUTED ->
          report.conditions.set(ConditionType.Routed, false, verdict.reason(), verdict.message());
    }
    boolean wasSlow = report.state.routing.warned();
    RouteConvergence.Step step = report.state.routing.observe(verdict.state(), System.nanoTime());
    if (step.converged() != null) {
      metrics.routingConverged(ns, name, step.converged());
      if (wasSlow) {
        events.record(
            group,
            EventReason.RoutingConverged,
            "routing converged after " + seconds(step.converged()) + ": " + verdict.message());
      }
    }
    if (step.slow()) {
      String message =
          "routing has not converged "
              + seconds(RouteConvergence.WARN_AFTER)
              + " after the leader changed: "
              + verdict.message();
      log.warn("LeaderGroup {}/{}: {}", ns, name, message);
      events.record(group, EventReason.RoutingSlow, message);
    }
    return step.lookAgainIn();
  }

  void forget(LeaderGroup group) {
    endpoints.forget(group);
  }

  private static String seconds(Duration d) {
    return String.format(Locale.ROOT, "%.1f s", d.toMillis() / 1000.0);
  }
}
