package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.api.v1alpha1.PendingFailover;
import dev.baton.client.HolderRecord;
import dev.baton.operator.routing.RouteConvergence;
import java.time.Instant;

/**
 * What the operator remembers about one election between reconciles. Rebuilt from the status after
 * a restart; kept in memory because the cached status may lag behind the operator's own patches.
 */
final class ElectionState {

  /** The holder record this operator last wrote or renewed, or null. */
  HolderRecord holder;

  /** Highest term seen for this election: what the status reports. */
  long maxTerm;

  /**
   * Terms reserved in the status up to this one (docs/design.md, "Terms and tokens never repeat").
   */
  long reserved;

  String leaderSince;

  /** Pod name last labeled leader by this operator: demoted first even if the cache lags. */
  String promotedPod;

  boolean redisDown;

  /** When the three views of the leader started to disagree (epoch millis), or 0. */
  long viewsDisagreeSinceMillis;

  /** A not-ready leader kept for spec.failoverDelay, or null. */
  FailoverDamping.Pending pendingFailover;

  /** Timing of the routing after the last leader change. */
  final RouteConvergence routing = new RouteConvergence();

  /** The last problem writing spec.service's objects, reported once. */
  String lastRoutingProblem;

  /** The last problem reported as an Event, so it is not reported again on every retry. */
  String lastProblem;

  static ElectionState from(LeaderGroupStatus status, String clusterId, String namespace) {
    ElectionState s = new ElectionState();
    if (status != null) {
      s.maxTerm = status.getTerm() == null ? 0 : status.getTerm();
      s.reserved = status.getReservedTerm() == null ? 0 : status.getReservedTerm();
      if (status.getLeader() != null
          && !status.getLeader().isEmpty()
          && status.getLeaderUID() != null
          && status.getTerm() != null) {
        s.holder =
            new HolderRecord(
                clusterId, namespace, status.getLeader(), status.getLeaderUID(), status.getTerm());
        s.leaderSince = status.getLeaderSince();
        s.promotedPod = status.getLeader();
        PendingFailover p = status.getPendingFailover();
        if (p != null && status.getLeader().equals(p.getPod())) {
          try {
            s.pendingFailover =
                new FailoverDamping.Pending(
                    p.getPod(),
                    status.getLeaderUID(),
                    Instant.parse(p.getNotReadySince()),
                    Instant.parse(p.getFailoverAt()));
          } catch (RuntimeException unreadable) {
            // the wait starts again from now
          }
        }
      }
    }
    return s;
  }

  void adopt(HolderRecord record) {
    holder = record;
    maxTerm = Math.max(maxTerm, record.term());
  }

  void forgetHolder() {
    holder = null;
    leaderSince = null;
  }
}
