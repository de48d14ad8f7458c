package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.api.v1alpha1.PendingFailover;
import dev.baton.api.v1alpha1.RouteStatus;
import dev.baton.operator.kube.ConditionType;
import dev.baton.operator.kube.Conditions;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.kube.EventRecorder;
import dev.baton.operator.kube.ResourceReporter;
import dev.baton.operator.kube.StatusWriter;
import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.lease.RedisUnavailableException;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.metrics.Liveness;
import io.fabric8.kubernetes.api.model.Condition;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The report step of a LeaderGroup reconcile: conditions, Events, metrics and the status. Every
 * condition change goes through a {@link Report}, which starts from the status as it was, so a
 * condition nobody looked at this time is carried over, and the status is written only when it
 * changed.
 */
final class GroupReporter extends ResourceReporter<LeaderGroup, LeaderGroupStatus> {

  private static final Logger log = LoggerFactory.getLogger(GroupReporter.class);

  /** How soon a group whose Secret is missing or unusable looks again. */
  static final Duration SECRET_RETRY = Duration.ofSeconds(5);

  /** One reconcile's report, built as the reconcile goes. */
  final class Report {
    final LeaderGroup group;
    final ElectionState state;
    final LeaderGroupStatus old;
    final Conditions conditions;
    final long startedNanos;

    /** Where each leader Service routes: carried over unless the routing step looked. */
    List<RouteStatus> routing;

    private Report(LeaderGroup group, ElectionState state) {
      this.group = group;
      this.state = state;
      this.old = group.getStatus() == null ? new LeaderGroupStatus() : group.getStatus();
      this.routing = old.getRouting();
      this.conditions =
          new Conditions(old.getConditions(), group.getMetadata().getGeneration(), clock);
      this.startedNanos = System.nanoTime();
    }

    private String ns() {
      return group.getMetadata().getNamespace();
    }

    private String name() {
      return group.getMetadata().getName();
    }
  }

  GroupReporter(
      EventRecorder events,
      BatonMetrics metrics,
      Liveness liveness,
      StatusWriter statusWriter,
      Clock clock) {
    super(
        events,
        metrics,
        liveness,
        statusWriter,
        clock,
        TermReservations::keep,
        TermReservations::reserved);
  }

  Report begin(LeaderGroup group, ElectionState state) {
    return new Report(group, state);
  }

  UpdateControl<LeaderGroup> invalid(Report r, String message) {
    reportOnce(r, EventReason.InvalidSpec, message);
    r.conditions
        .set(ConditionType.Invalid, true, "InvalidSpec", message)
        .set(ConditionType.Ready, false, "InvalidSpec", message)
        .keep(ConditionType.RedisAvailable)
        .keep(ConditionType.Conflict)
        .keep(ConditionType.SplitBrainSuspected)
        .keep(ConditionType.Routed);
    return finish(r, r.old.getCandidates(), null);
  }

  void valid(Report r) {
    r.conditions.set(ConditionType.Invalid, false, "Valid", "spec is valid");
  }

  /**
   * Paused: Paused=True, and Ready keeps meaning "has a leader" (the one whose lease is kept), so a
   * maintenance window pages nobody. Looked at again each renew interval, as the renewer does.
   */
  UpdateControl<LeaderGroup> paused(Report r, String leader, int ready, Duration renewInterval) {
    r.conditions.set(
        ConditionType.Paused,
        true,
        "Paused",
        "spec.paused: leadership is frozen (nobody is elected, labels are left as they are); the"
            + " current leader's lease is still renewed while its pod exists");
    if (leader != null) {
      long term = r.state.holder == null ? 0 : r.state.holder.term();
      r.conditions.set(
          ConditionType.Ready,
          true,
          "LeaderElected",
          leader + " leads with term " + term + " (paused)");
    } else {
      r.conditions
          .set(
              ConditionType.Ready,
              false,
              "Paused",
              "paused without a leader: nobody is elected until spec.paused is false")
          .keep(ConditionType.RedisAvailable);
    }
    r.conditions
        .keep(ConditionType.Conflict)
        .keep(ConditionType.SplitBrainSuspected)
        .keep(ConditionType.Routed);
    metrics.groupState(r.ns(), r.name(), r.state.maxTerm, ready);
    return finish(r, ready, renewInterval);
  }

  /** Pods claimed by an older group with the same role label are reported, once as an Event. */
  void membership(Report r, Membership membership, String roleLabel) {
    if (membership.conflicts().isEmpty()) {
      r.conditions.set(ConditionType.Conflict, false, "NoConflict", "no pod is claimed twice");
      return;
    }
    String message = conflictMessage(membership.conflicts(), roleLabel);
    if (!Conditions.isTrue(r.old.getConditions(), ConditionType.Conflict)) {
      events.record(r.group, EventReason.Conflict, message);
    }
    r.conditions.set(ConditionType.Conflict, true, "PodClaimedByOtherGroup", message);
  }

  UpdateControl<LeaderGroup> secretProblem(Report r, RedisSecrets.SecretProblem e, int ready) {
    reportOnce(r, EventReason.RedisUnavailable, e.getMessage());
    r.conditions
        .set(ConditionType.RedisAvailable, false, e.reason(), e.getMessage())
        .set(ConditionType.Ready, false, e.reason(), e.getMessage())
        .keep(ConditionType.SplitBrainSuspected)
        .keep(ConditionType.Routed);
    return finish(r, ready, SECRET_RETRY);
  }

  /** Redis did not answer: labels stay as they are (docs/design.md, "Failure policy"). */
  UpdateControl<LeaderGroup> failStatic(
      Report r, RedisUnavailableException e, int ready, Duration retry) {
    if (!r.state.redisDown) {
      r.state.redisDown = true;
      log.warn(
          "LeaderGroup {}/{}: {}; keeping labels as they are", r.ns(), r.name(), e.getMessage());
      events.record(
          r.group,
          EventReason.RedisUnavailable,
          e.getMessage() + "; labels are kept as they are until Redis answers");
    }
    r.conditions
        .set(
            ConditionType.RedisAvailable,
            false,
            "Unreachable",
            e.getMessage() + "; labels are kept as they are")
        .keep(ConditionType.SplitBrainSuspected)
        .keep(ConditionType.Routed);
    if (Conditions.find(r.old.getConditions(), ConditionType.Ready).isPresent()) {
      r.conditions.keep(ConditionType.Ready);
    } else {
      r.conditions.set(ConditionType.Ready, false, "RedisUnavailable", e.getMessage());
    }
    return finish(r, ready, retry);
  }

  void redisAnswered(Report r) {
    if (r.state.redisDown) {
      r.state.redisDown = false;
      events.record(r.group, EventReason.RedisRecovered, "Redis is reachable again");
    }
    r.state.lastProblem = null;
    r.conditions.set(ConditionType.RedisAvailable, true, "Reachable", "Redis answered");
  }

  /** Events, metrics and the Ready condition for what the act step did. */
  void carriedOut(
      Report r,
      Election.Decision decision,
      ElectionActuator.Outcome outcome,
      Membership membership,
      int ready,
      FailoverDamping.Verdict damping) {
    Candidate leader = outcome.leader();
    damped(r, damping);
    long term = r.state.holder == null ? 0 : r.state.holder.term();
    if (decision.action() == Election.Action.ELECT) {
      String previous = outcome.previousLeader();
      String message =
          outcome.sameLeader()
              ? "lease was lost in Redis; re-acquired for " + leader.name() + " with term " + term
              : leader.name()
                  + " leads with term "
                  + term
                  + describeChange(decision.reason(), previous);
      log.info("LeaderGroup {}/{}: {}", r.ns(), r.name(), message);
      events.record(r.group, decision.reason(), message);
      metrics.leaderChanged(r.ns(), r.name(), decision.reason().name());
      if (previous != null && !outcome.sameLeader()) {
        metrics.failover(r.ns(), r.name(), Duration.ofNanos(System.nanoTime() - r.startedNanos));
      }
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
              ConditionType.Ready, false, "FailoverPending", pendingMessage(damping.pending()));
        } else {
          r.conditions.set(
              ConditionType.Ready,
              true,
              "LeaderElected",
              leader.name() + " leads with term " + term);
        }
      }
      case STAND_ASIDE ->
          r.conditions.set(
              ConditionType.Ready,
              true,
              "LeaderInOtherCluster",
              "the lease is held outside this cluster; all pods here are followers");
      case RELEASE -> {
        boolean conflicted = membership.members().isEmpty() && !membership.conflicts().isEmpty();
        String reason = conflicted ? "Conflict" : "NoCandidates";
        String message =
            conflicted
                ? "every selected pod is claimed by an older LeaderGroup"
                : "no ready candidate pod; nobody is leader";
        boolean wasNoCandidates =
            "NoCandidates"
                .equals(
                    Conditions.find(r.old.getConditions(), ConditionType.Ready)
                        .map(Condition::getReason)
                        .orElse(null));
        if (!wasNoCandidates && !conflicted) {
          events.record(r.group, EventReason.NoCandidates, message);
        }
        r.conditions.set(ConditionType.Ready, false, reason, message);
      }
    }
    metrics.groupState(r.ns(), r.name(), r.state.maxTerm, ready);
  }

  /** Events for a not-ready leader kept by spec.failoverDelay, once when it starts or ends. */
  private void damped(Report r, FailoverDamping.Verdict damping) {
    PendingFailover before = r.old.getPendingFailover();
    FailoverDamping.Pending now = damping.pending();
    if (now != null && (before == null || !now.pod().equals(before.getPod()))) {
      String message = pendingMessage(now);
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

  private static String pendingMessage(FailoverDamping.Pending p) {
    return "the leader "
        + p.pod()
        + " is not ready; it stays leader until "
        + p.failoverAt().truncatedTo(ChronoUnit.MILLIS)
        + " (spec.failoverDelay) unless it becomes ready";
  }

  /** Writes the status when it changed and says when to reconcile next. */
  UpdateControl<LeaderGroup> finish(Report r, Integer ready, Duration next) {
    LeaderGroupStatus status = status(r, ready);
    metrics.conditions(r.ns(), r.name(), status.getConditions());
    r.state.reserved = Math.max(r.state.reserved, write(r.group, status, next));
    return next(next);
  }

  @Override
  protected void forgetSeries(String namespace, String name) {
    metrics.forgetGroup(namespace, name);
  }

  private LeaderGroupStatus status(Report r, Integer ready) {
    ElectionState state = r.state;
    LeaderGroupStatus s = new LeaderGroupStatus();
    s.setLeader(state.holder == null ? "" : state.holder.pod());
    s.setLeaderUID(state.holder == null ? "" : state.holder.uid());
    s.setTerm(state.maxTerm > 0 ? state.maxTerm : null);
    s.setReservedTerm(state.reserved > 0 ? state.reserved : null);
    s.setLeaderSince(state.holder == null || state.leaderSince == null ? "" : state.leaderSince);
    s.setCandidates(ready == null ? 0 : ready);
    s.setObservedGeneration(r.group.getMetadata().getGeneration());
    s.setRouting(r.routing);
    FailoverDamping.Pending pending = state.pendingFailover;
    s.setPendingFailover(
        pending == null
            ? null
            : new PendingFailover(
                pending.pod(),
                pending.notReadySince().toString(),
                pending.failoverAt().toString()));
    s.setConditions(r.conditions.build());
    return s;
  }

  private void reportOnce(Report r, EventReason reason, String message) {
    if (!message.equals(r.state.lastProblem)) {
      r.state.lastProblem = message;
      log.warn("LeaderGroup {}/{}: {}", r.ns(), r.name(), message);
      events.record(r.group, reason, message);
    }
  }

  private static String conflictMessage(Map<String, String> conflicts, String roleLabel) {
    Map<String, List<String>> byGroup = new TreeMap<>();
    conflicts.forEach((pod, g) -> byGroup.computeIfAbsent(g, k -> new ArrayList<>()).add(pod));
    StringBuilder sb = new StringBuilder();
    byGroup.forEach(
        (g, podNames) ->
            sb.append(sb.length() == 0 ? "" : "; ")
                .append("pods ")
                .append(String.join(", ", podNames.stream().sorted().toList()))
                .append(" are claimed by LeaderGroup ")
                .append(g)
                .append(" with the same roleLabel ")
                .append(roleLabel)
                .append(" and are left alone"));
    return sb.toString();
  }

  private static String describeChange(EventReason reason, String previous) {
    if (previous == null) {
      return "";
    }
    return switch (reason) {
      case LeaderDeleted -> " (" + previous + " is gone)";
      case LeaderNotReady -> " (" + previous + " is not ready)";
      case LeaderTerminating -> " (" + previous + " is terminating)";
      case LeaderNodeLost -> " (the node of " + previous + " is not ready)";
      case LeaderOptedOut -> " (" + previous + " is annotated baton.dev/candidate=false)";
      case Switchover -> " (switchover from " + previous + ")";
      case LeaseExpired -> " (the lease of " + previous + " expired)";
      default -> "";
    };
  }
}
