package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.ConditionType;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.operator.fencing.Reservations;
import dev.baton.operator.kube.Conditions;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.kube.ReportedKind;
import dev.baton.operator.kube.Reporting;
import dev.baton.operator.kube.ResourceReporter;
import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.lease.RedisUnavailableException;
import io.fabric8.kubernetes.api.model.Condition;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;

/**
 * The report step of a LeaderGroup reconcile, and the only one that says anything: turns what was
 * observed, decided, done, routed and checked into conditions, Events, metrics and the status.
 * Every condition change goes through a {@link GroupReport}, which starts from the status as it
 * was, so a condition nobody looked at this time is carried over, and the status is written only
 * when it changed.
 */
final class GroupReporter extends ResourceReporter<LeaderGroup, LeaderGroupStatus, String> {

  private final ElectionReport election;
  private final ViewsReport views;
  private final AgentsReport agents;

  /**
   * @param terms the reservations the act step makes, whose status fields every write keeps
   */
  GroupReporter(Reporting reporting, Reservations<LeaderGroup, LeaderGroupStatus> terms) {
    super(reporting, kind(terms));
    this.election = new ElectionReport(events, metrics);
    this.views = new ViewsReport(events, metrics);
    this.agents = new AgentsReport(events, metrics);
  }

  /**
   * A group's status as the reporter base handles it: its reservation is of terms, and what it
   * tells of its own is the Service problem told last, none (null) before the first.
   */
  private static ReportedKind<LeaderGroupStatus, String> kind(
      Reservations<LeaderGroup, LeaderGroupStatus> terms) {
    return new ReportedKind<>(
        terms::keepReservation,
        terms::reserved,
        LeaderGroupStatus::getConditions,
        LeaderGroupStatus::setConditions,
        null);
  }

  /**
   * What the reconcile leaves to JOSDK, and the reservation the status on the server records after
   * the write.
   *
   * @param control when to look again; null when the act step stopped before the end (the lease
   *     changed under us, or a write failed), which writes no status: the reconciler decides again
   *     at once or throws the failure for JOSDK's retry
   * @param reserved 0 when nothing was written
   */
  record Reported(UpdateControl<LeaderGroup> control, long reserved) {}

  /**
   * Reports one reconcile, once, at its end: the state it leaves and what each step found or did.
   *
   * @param startedNanos when the reconcile began (System.nanoTime), for the failover time
   * @param agentsFound the group's pods that ask for the agent, or null when they were not looked
   *     at
   */
  Reported report(
      LeaderGroup group,
      ElectionState state,
      GroupEnding ending,
      long startedNanos,
      AgentsReport.Found agentsFound) {
    GroupReport r = new GroupReport(group, clock, startedNanos, recall(group));
    agents.report(r, agentsFound);
    try {
      return report(r, state, ending);
    } finally {
      remember(group, r.said);
    }
  }

  private Reported report(GroupReport r, ElectionState state, GroupEnding ending) {
    LeaderGroup group = r.group;
    if (ending instanceof GroupEnding.Invalid i) {
      return invalid(r, state, i);
    }
    r.conditions.set(ConditionType.Invalid, false, "Valid", "spec is valid");
    if (!Boolean.TRUE.equals(group.getSpec().getPaused())) {
      r.conditions.drop(ConditionType.Paused);
    }
    if (ending instanceof GroupEnding.SecretMissing m) {
      if (!m.paused()) {
        membership(r, m.looked());
      }
      return secretProblem(r, state, m.problem(), m.looked().pods().ready());
    }
    if (ending instanceof GroupEnding.RedisDown d) {
      if (!d.paused()) {
        membership(r, d.looked());
      }
      if (d.answered()) {
        redisAnswered(r);
      }
      return failStatic(r, state, d.cause(), d.looked().pods().ready(), d.looked().renewInterval());
    }
    if (ending instanceof GroupEnding.Paused p) {
      if (p.leader() != null) {
        redisAnswered(r);
      }
      GroupEnding.Looked looked = p.looked();
      return paused(r, state, p.leader(), looked.pods().ready(), looked.renewInterval());
    }
    if (ending instanceof GroupEnding.Stopped s) {
      membership(r, s.looked());
      redisAnswered(r);
      // The step stopped early, yet a lease it won is a leader change: told now, since the next
      // reconcile finds that leader in place and has nothing to tell.
      GroupEnding.Elected e = s.elected();
      if (e.decision().action() == Election.Action.ELECT
          && e.outcome().holder() != null
          && e.outcome().holder().pod().equals(e.decision().leader().name())) {
        election.leaderChanged(r, state, e.decision(), e.seen());
      }
      return new Reported(null, 0);
    }
    GroupEnding.Carried c = (GroupEnding.Carried) ending;
    membership(r, c.looked());
    redisAnswered(r);
    GroupEnding.Elected e = c.elected();
    election.carriedOut(r, state, e.decision(), e.seen(), e.damping());
    routed(r, c.routed());
    viewsChecked(r, c.views(), c.looked().renewInterval());
    return finish(r, state, c.looked().pods().ready(), c.next());
  }

  private Reported invalid(GroupReport r, ElectionState state, GroupEnding.Invalid invalid) {
    reportOnce(r, invalid.event(), invalid.message());
    r.conditions
        .set(ConditionType.Invalid, true, invalid.reason(), invalid.message())
        .set(ConditionType.Ready, false, invalid.reason(), invalid.message());
    return finish(r, state, r.old.getCandidates(), null);
  }

  /**
   * Paused: Paused=True, and Ready keeps meaning "has a leader" (the one whose lease is kept), so a
   * maintenance window pages nobody. Looked at again each renew interval, as the renewer does.
   */
  private Reported paused(
      GroupReport r, ElectionState state, String leader, int ready, Duration renewInterval) {
    r.conditions.set(
        ConditionType.Paused,
        true,
        "Paused",
        "spec.paused: leadership is frozen (nobody is elected, labels are left as they are); the"
            + " current leader's lease is still renewed while its pod exists");
    if (leader != null) {
      long term = state.holder() == null ? 0 : state.holder().term();
      r.conditions.set(
          ConditionType.Ready,
          true,
          "LeaderElected",
          leader + " leads with term " + term + " (paused)");
    } else {
      r.conditions.set(
          ConditionType.Ready,
          false,
          "Paused",
          "paused without a leader: nobody is elected until spec.paused is false");
    }
    metrics.groupState(r.ns(), r.name(), state.maxTerm(), ready);
    return finish(r, state, ready, renewInterval);
  }

  /**
   * Pods another group owns, and pods that did not allow the role label, are reported, each clash
   * once as an Event when the condition's message changes.
   */
  private void membership(GroupReport r, GroupEnding.Looked looked) {
    Membership membership = looked.pods().membership();
    if (membership.conflicts().isEmpty() && membership.notAllowed().isEmpty()) {
      r.conditions.set(ConditionType.Conflict, false, "NoConflict", "no pod is claimed twice");
      return;
    }
    String claimed =
        membership.conflicts().isEmpty() ? null : GroupMessages.conflict(membership.conflicts());
    String refused =
        membership.notAllowed().isEmpty()
            ? null
            : GroupMessages.roleLabelNotAllowed(membership.notAllowed(), looked.roleLabel());
    String message =
        claimed == null ? refused : refused == null ? claimed : claimed + "; " + refused;
    String reason = claimed == null ? "RoleLabelNotAllowed" : "PodClaimedByOtherGroup";
    String before =
        Conditions.find(r.old.getConditions(), ConditionType.Conflict)
            .filter(c -> "True".equals(c.getStatus()))
            .map(Condition::getMessage)
            .orElse(null);
    if (!message.equals(before)) {
      events.record(
          r.group,
          claimed == null ? EventReason.RoleLabelNotAllowed : EventReason.Conflict,
          message);
    }
    r.conditions.set(ConditionType.Conflict, true, reason, message);
  }

  private Reported secretProblem(
      GroupReport r, ElectionState state, RedisSecrets.SecretProblem e, int ready) {
    reportOnce(r, EventReason.RedisUnavailable, e.getMessage());
    r.conditions
        .set(ConditionType.RedisAvailable, false, e.reason(), e.getMessage())
        .set(ConditionType.Ready, false, e.reason(), e.getMessage());
    return finish(r, state, ready, RedisSecrets.SecretProblem.RETRY);
  }

  /** Redis did not answer: labels stay as they are (docs/design.md, "Failure policy"). */
  private Reported failStatic(
      GroupReport r, ElectionState state, RedisUnavailableException e, int ready, Duration retry) {
    r.said =
        redisLost(
            r.group,
            r.said,
            EventReason.RedisUnavailable,
            e.getMessage() + "; keeping labels as they are",
            e.getMessage() + "; labels are kept as they are until Redis answers");
    r.conditions.set(
        ConditionType.RedisAvailable,
        false,
        "Unreachable",
        e.getMessage() + "; labels are kept as they are");
    if (Conditions.find(r.old.getConditions(), ConditionType.Ready).isEmpty()) {
      r.conditions.set(ConditionType.Ready, false, "RedisUnavailable", e.getMessage());
    }
    return finish(r, state, ready, retry);
  }

  private void redisAnswered(GroupReport r) {
    r.said = redisBack(r.group, r.said);
    r.conditions.set(ConditionType.RedisAvailable, true, "Reachable", "Redis answered");
  }

  /** Conditions, Events and metrics for what the routing step wrote and found. */
  void routed(GroupReport r, GroupRouting.Routed routed) {
    r.said = r.said.own(views.routed(r, routed, r.said.own()));
  }

  /** SplitBrainSuspected, and its Event once, from what the three views' check found. */
  void viewsChecked(GroupReport r, SplitBrainCheck.Finding found, Duration renewInterval) {
    views.checked(r, found, renewInterval);
  }

  /** Writes the status when it changed and says when to reconcile next. */
  private Reported finish(GroupReport r, ElectionState state, Integer ready, Duration next) {
    LeaderGroupStatus status = r.status(state, ready);
    metrics.conditions(r.ns(), r.name(), status.getConditions());
    long reserved = write(r.group, status, next);
    return new Reported(next(next), reserved);
  }

  @Override
  protected void forgetSeries(String namespace, String name) {
    metrics.forgetGroup(namespace, name);
    agents.forget(new io.javaoperatorsdk.operator.processing.event.ResourceID(name, namespace));
  }

  private void reportOnce(GroupReport r, EventReason reason, String message) {
    r.said = problemOnce(r.group, r.said, reason, message);
  }
}
