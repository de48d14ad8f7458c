package dev.baton.operator.leadergroup;

import java.util.List;

/**
 * Everything a LeaderGroup reconcile decides, from one observation: whether a not-ready leader is
 * waited for ({@link FailoverDamping}), who leads ({@link Election}) and the steps that carry it
 * out ({@link ElectionPlan}). A pure function of the observation, as a lock's {@code
 * redislock/LockDecision} is, so the reconcile plans in one call and the act step is handed the
 * whole plan.
 *
 * @param damping the failover delay's verdict, which the state keeps
 * @param decision what the election decided, for the report
 * @param steps the effects the act step carries out, in order
 * @param promotes a pod that did not lead before is elected: routing times its convergence
 */
record GroupPlan(
    FailoverDamping.Verdict damping,
    Election.Decision decision,
    List<ElectionPlan.Effect> steps,
    boolean promotes) {

  /** Decides and plans: the same observation, the same plan. */
  static GroupPlan plan(Observation seen) {
    PodView pods = seen.pods();
    Election.Holder holder = seen.lease().holder();
    FailoverDamping.Verdict damping =
        FailoverDamping.judge(
            seen.settings().failoverDelay(),
            pods.candidates(),
            holder,
            pods.switchoverTo(),
            seen.state().pendingFailover(),
            seen.now());
    Election.Decision decision =
        Election.decide(
            pods.candidates(), holder, pods.switchoverTo(), seen.namespace(), damping.keepHolder());
    boolean promotes =
        decision.action() == Election.Action.ELECT && !seen.ledBefore(decision.leader());
    return new GroupPlan(damping, decision, ElectionPlan.plan(decision, seen), promotes);
  }
}
