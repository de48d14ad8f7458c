package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.api.v1alpha1.PendingFailover;
import dev.baton.api.v1alpha1.RouteStatus;
import dev.baton.client.HolderRecord;
import dev.baton.operator.kube.Conditions;
import dev.baton.operator.kube.Said;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Clock;
import java.util.List;

/**
 * One reconcile's report, built by the report step from how the reconcile ended ({@link
 * GroupEnding}).
 */
final class GroupReport {
  final LeaderGroup group;
  final LeaderGroupStatus old;
  final Conditions conditions;
  final long startedNanos;
  final ResourceID id;

  /** What was told before; what this report tells is added, and its reporter keeps the result. */
  Said<String> said;

  /** Where each leader Service routes: carried over unless the routing step looked. */
  List<RouteStatus> routing;

  /**
   * The agent image pods of the group should run: carried over unless the agents were looked at.
   */
  String agentImage;

  /**
   * @param said what was told of the group before; its own part is the last problem told of
   *     spec.service's objects
   */
  GroupReport(LeaderGroup group, Clock clock, long startedNanos, Said<String> said) {
    this.group = group;
    this.said = said;
    this.id = ResourceID.fromResource(group);
    this.old = group.getStatus() == null ? new LeaderGroupStatus() : group.getStatus();
    this.routing = old.getRouting();
    this.agentImage = old.getAgentImage();
    this.conditions =
        new Conditions(old.getConditions(), group.getMetadata().getGeneration(), clock);
    this.startedNanos = startedNanos;
  }

  String ns() {
    return group.getMetadata().getNamespace();
  }

  String name() {
    return group.getMetadata().getName();
  }

  /** The status to write: the election as the state holds it, and the conditions set. */
  LeaderGroupStatus status(ElectionState state, Integer ready) {
    LeaderGroupStatus s = new LeaderGroupStatus();
    HolderRecord holder = state.holder();
    s.setLeader(holder == null ? "" : holder.pod());
    s.setLeaderUID(holder == null ? "" : holder.uid());
    s.setTerm(state.maxTerm() > 0 ? state.maxTerm() : null);
    s.setReservedTerm(state.reserved() > 0 ? state.reserved() : null);
    s.setLeaderSince(holder == null || state.leaderSince() == null ? "" : state.leaderSince());
    s.setCandidates(ready == null ? 0 : ready);
    s.setObservedGeneration(group.getMetadata().getGeneration());
    s.setRouting(routing);
    s.setAgentImage(agentImage);
    FailoverDamping.Pending pending = state.pendingFailover();
    s.setPendingFailover(
        pending == null
            ? null
            : new PendingFailover(
                pending.pod(),
                pending.notReadySince().toString(),
                pending.failoverAt().toString()));
    s.setConditions(conditions.build());
    return s;
  }
}
