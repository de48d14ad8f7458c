package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.ConditionType;
import dev.baton.operator.kube.Conditions;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.kube.EventRecorder;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.routing.RouteCheck;
import dev.baton.operator.routing.RouteConvergence;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part of the group's report step that reports how the group's leader is seen from outside
 * Redis: the Routed condition from what the routing step wrote and found, and SplitBrainSuspected
 * from the check of the three views, with their Events and metrics.
 */
record ViewsReport(EventRecorder events, BatonMetrics metrics) {

  private static final Logger log = LoggerFactory.getLogger(ViewsReport.class);

  /** Conditions, Events and metrics for what the routing step wrote and found. */
  /**
   * @param saidBefore the Service problem reported by the reconcile before, or null
   * @return the Service problem now, or null: an Event only when it is new
   */
  String routed(GroupReport r, GroupRouting.Routed routed, String saidBefore) {
    RouteCheck.Verdict verdict = routed.verdict();
    r.routing = verdict.routes().isEmpty() ? null : verdict.routes();
    String problem = routed.writeProblem();
    if (problem != null) {
      if (!problem.equals(saidBefore)) {
        events.record(r.group, EventReason.ServiceProblem, problem);
      }
      r.conditions.set(ConditionType.Routed, false, "ServiceProblem", problem);
      return problem;
    }
    switch (verdict.state()) {
      case NO_SERVICE ->
          r.conditions.unknown(ConditionType.Routed, verdict.reason(), verdict.message());
      case ROUTED ->
          r.conditions.set(ConditionType.Routed, true, verdict.reason(), verdict.message());
      case NOT_ROUTED ->
          r.conditions.set(ConditionType.Routed, false, verdict.reason(), verdict.message());
    }
    RouteConvergence.Step step = routed.step();
    if (step.converged() != null) {
      metrics.routingConverged(r.ns(), r.name(), step.converged());
      if (step.wasSlow()) {
        events.record(
            r.group,
            EventReason.RoutingConverged,
            GroupMessages.routingConverged(step.converged(), verdict.message()));
      }
    }
    if (step.slow()) {
      String message = GroupMessages.routingSlow(verdict.message());
      log.warn("LeaderGroup {}/{}: {}", r.ns(), r.name(), message);
      events.record(r.group, EventReason.RoutingSlow, message);
    }
    return null;
  }

  /** SplitBrainSuspected, and its Event once, from what the three views' check found. */
  void checked(GroupReport r, SplitBrainCheck.Finding found, Duration renewInterval) {
    List<Condition> before = r.old.getConditions();
    if (found.disagreement() == null) {
      notSuspected(r);
    } else if (found.outlived()) {
      String message =
          found.disagreement() + " (for more than " + renewInterval.toMillis() + " ms)";
      if (!Conditions.isTrue(before, ConditionType.SplitBrainSuspected)) {
        log.warn("LeaderGroup {}/{}: split brain suspected: {}", r.ns(), r.name(), message);
        events.record(r.group, EventReason.SplitBrainSuspected, message);
      }
      r.conditions.set(ConditionType.SplitBrainSuspected, true, "ViewsDisagree", message);
    } else if (Conditions.find(before, ConditionType.SplitBrainSuspected).isEmpty()) {
      // A new group, whose cache has not shown its first labels yet: nothing is suspected before
      // a disagreement outlives the interval. Said in the status write this reconcile makes
      // anyway, rather than in one more write a moment later.
      notSuspected(r);
    }
  }

  private static void notSuspected(GroupReport r) {
    r.conditions.set(
        ConditionType.SplitBrainSuspected, false, "ViewsAgree", GroupMessages.VIEWS_AGREE);
  }
}
