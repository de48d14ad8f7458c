package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.operator.pods.Candidate;
import dev.baton.operator.routing.LeaderEndpoints;
import dev.baton.operator.routing.LeaderServices;
import dev.baton.operator.routing.RouteCheck;
import dev.baton.operator.routing.RouteConvergence;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.function.LongSupplier;

/**
 * The routing step of a LeaderGroup reconcile, after the election: writes the leader's endpoint
 * when the group owns its Service (spec.service), then checks every leader Service's endpoints and
 * times the convergence after a leader change (docs/design.md, "Routing"). Reports nothing: what it
 * found is the report step's to report.
 *
 * @param nanoTime the monotonic clock routing's convergence is timed by
 */
record GroupRouting(LeaderServices sources, LeaderEndpoints endpoints, LongSupplier nanoTime) {

  /**
   * What the routing step wrote and found.
   *
   * @param writeProblem why spec.service's objects could not be written, or null
   * @param verdict where the leader Services route
   * @param step the convergence timing's step, null when the write failed (nothing was timed)
   * @param timing the routing clock to keep
   */
  record Routed(
      String writeProblem,
      RouteCheck.Verdict verdict,
      RouteConvergence.Step step,
      RouteConvergence timing) {

    /** When to look again without an event, or null. */
    Duration lookAgainIn() {
      return step == null ? null : step.lookAgainIn();
    }
  }

  /** Routes to the leader the plan elected or kept, once the act step carried it out. */
  Routed route(Observation seen, GroupPlan plan, RouteConvergence timing) {
    return route(
        seen.group(),
        seen.settings(),
        seen.pods(),
        plan.decision().leader(),
        plan.promotes(),
        timing);
  }

  /**
   * @param candidate the leader after the act step, or null; not ready while a failover is damped
   * @param promoted a new leader was labeled in this reconcile
   * @param timing the routing clock as the last reconcile left it
   */
  Routed route(
      LeaderGroup group,
      GroupSettings settings,
      PodView pods,
      Candidate candidate,
      boolean promoted,
      RouteConvergence timing) {
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
      timing = timing.leaderChanged(nanoTime.getAsLong());
    }
    RouteCheck.Verdict verdict =
        RouteCheck.check(
            leader == null
                ? null
                : new RouteCheck.Leader(
                    leader.getMetadata().getName(), leader.getMetadata().getLabels(), leaderReady),
            settings.roleLabel(),
            sources.leaderServices(group, settings.roleLabel(), pods.membership().members()));
    if (writeProblem != null) {
      return new Routed(writeProblem, verdict, null, timing);
    }
    RouteConvergence.Step step = timing.observe(verdict.state(), nanoTime.getAsLong());
    return new Routed(null, verdict, step, step.next());
  }

  void forget(LeaderGroup group) {
    endpoints.forget(group);
  }
}
