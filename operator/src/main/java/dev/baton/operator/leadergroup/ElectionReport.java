package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.ConditionType;
import dev.baton.api.v1alpha1.PendingFailover;
import dev.baton.operator.kube.Conditions;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.kube.EventRecorder;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.pods.Candidate;
import io.fabric8.kubernetes.api.model.Condition;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The part of the group's report step that reports the election: the Ready condition from what was
 * decided and carried out, a leader change, a refused switchover and a damped failover, with their
 * Events, log lines and metrics.
 */
record ElectionReport(EventRecorder events, BatonMetrics metrics) {

  private static final Logger log = LoggerFactory.getLogger(ElectionReport.class);

  /** Events, metrics and the Ready condition for what the act step did. */
  void carriedOut(
      GroupReport r,
      ElectionState state,
      Election.Decision decision,
      Observation seen,
      FailoverDamping.Verdict damping) {
    damped(r, damping);
    long term = state.holder() == null ? 0 : state.holder().term();
    if (decision.action() == Election.Action.ELECT) {
      leaderChanged(r, state, decision, seen);
    }
    if (decision.switchover() == Election.SwitchoverOutcome.REFUSED) {
      events.record(
          r.group,
          EventReason.SwitchoverRefused,
          "switchover refused: " + decision.switchoverMessage() + "; the leader stays");
    }
    switch (decision.action()) {
      case KEEP, ELECT -> {
        if (damping.keepHolder()) {
          r.conditions.set(
              ConditionType.Ready,
              false,
              "FailoverPending",
              GroupMessages.pending(damping.pending()));
        } else {
          r.conditions.set(
              ConditionType.Ready,
              true,
              "LeaderElected",
              decision.leader().name() + " leads with term " + term);
        }
      }
      case STAND_ASIDE ->
          r.conditions.set(
              ConditionType.Ready,
              true,
              "LeaderInOtherCluster",
              "the lease is held outside this cluster; all pods here are followers");
      case RELEASE -> noLeader(r, state, seen.pods().membership());
    }
    metrics.groupState(r.ns(), r.name(), state.maxTerm(), seen.pods().ready());
  }

  /** Nobody may lead: Ready says why, and its Event is told when the reason changes. */
  private void noLeader(GroupReport r, ElectionState state, Membership membership) {
    boolean conflicted =
        membership.members().isEmpty()
            && (!membership.conflicts().isEmpty() || !membership.notAllowed().isEmpty());
    // A group that never had a leader, whose pods exist and are not ready yet, is waiting for them
    // to start, not failing: told once, as Normal. Losing every candidate later, or selecting no
    // pod at all, is a Warning.
    boolean starting = !conflicted && state.maxTerm() == 0 && !membership.members().isEmpty();
    EventReason told = starting ? EventReason.WaitingForCandidates : EventReason.NoCandidates;
    String reason = conflicted ? "Conflict" : told.name();
    String message =
        conflicted
            ? "no selected pod may be labeled by this group (condition Conflict says why)"
            : starting
                ? "waiting for the first ready candidate ("
                    + membership.members().size()
                    + " pods selected, none ready yet); it will lead"
                : "no ready candidate pod; nobody is leader";
    String before =
        Conditions.find(r.old.getConditions(), ConditionType.Ready)
            .map(Condition::getReason)
            .orElse(null);
    if (!told.name().equals(before) && !conflicted) {
      events.record(r.group, told, message);
    }
    r.conditions.set(ConditionType.Ready, false, reason, message);
  }

  /** The log line, Event and metrics of a lease won: a new leader, or the same one re-acquired. */
  void leaderChanged(
      GroupReport r, ElectionState state, Election.Decision decision, Observation seen) {
    Candidate leader = decision.leader();
    long term = state.holder() == null ? 0 : state.holder().term();
    String previous = seen.previousLeader();
    boolean sameLeader = seen.ledBefore(leader);
    String message =
        sameLeader
            ? "lease was lost in Redis; re-acquired for " + leader.name() + " with term " + term
            : leader.name()
                + " leads with term "
                + term
                + GroupMessages.change(decision.reason(), previous);
    log.info("LeaderGroup {}/{}: {}", r.ns(), r.name(), message);
    events.record(r.group, decision.reason(), message);
    metrics.leaderChanged(r.ns(), r.name(), decision.reason().name());
    if (previous != null && !sameLeader) {
      metrics.failover(r.ns(), r.name(), Duration.ofNanos(System.nanoTime() - r.startedNanos));
    }
  }

  /** Events for a not-ready leader kept by spec.failoverDelay, once when it starts or ends. */
  private void damped(GroupReport r, FailoverDamping.Verdict damping) {
    PendingFailover before = r.old.getPendingFailover();
    FailoverDamping.Pending now = damping.pending();
    if (now != null && (before == null || !now.pod().equals(before.getPod()))) {
      String message = GroupMessages.pending(now);
      log.info("LeaderGroup {}/{}: {}", r.ns(), r.name(), message);
      events.record(r.group, EventReason.FailoverPending, message);
    }
    if (damping.averted() != null) {
      events.record(
          r.group,
          EventReason.FailoverAverted,
          damping.averted() + " is ready again within spec.failoverDelay; it stays leader");
    }
  }
}
