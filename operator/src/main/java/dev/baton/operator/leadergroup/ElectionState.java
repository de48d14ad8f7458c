package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.api.v1alpha1.PendingFailover;
import dev.baton.client.HolderRecord;
import dev.baton.operator.routing.RouteConvergence;
import java.time.Instant;

/**
 * What the operator remembers about one election between reconciles. Rebuilt from the status after
 * a restart; kept in memory because the cached status may lag behind the operator's own patches. A
 * value: every step returns what it did, and the reconciler alone keeps the state that follows
 * (docs/design.md, "The flow").
 *
 * @param holder the holder record this operator last wrote or renewed, or null
 * @param maxTerm highest term seen for this election: what the status reports
 * @param reserved terms reserved in the status up to this one (docs/design.md, "Terms and tokens
 *     never repeat")
 * @param promotedPod pod name last labeled leader by this operator: demoted first even if the cache
 *     lags
 * @param viewsDisagreeSinceMillis when the three views of the leader started to disagree (epoch
 *     millis), or 0
 * @param pendingFailover a not-ready leader kept for spec.failoverDelay, or null
 * @param routing timing of the routing after the last leader change
 */
record ElectionState(
    HolderRecord holder,
    long maxTerm,
    long reserved,
    String leaderSince,
    String promotedPod,
    long viewsDisagreeSinceMillis,
    FailoverDamping.Pending pendingFailover,
    RouteConvergence routing) {

  static ElectionState from(LeaderGroupStatus status, String clusterId, String namespace) {
    ElectionState s = new ElectionState(null, 0, 0, null, null, 0, null, RouteConvergence.IDLE);
    if (status == null) {
      return s;
    }
    long term = status.getTerm() == null ? 0 : status.getTerm();
    long reserved = status.getReservedTerm() == null ? 0 : status.getReservedTerm();
    if (status.getLeader() == null
        || status.getLeader().isEmpty()
        || status.getLeaderUID() == null
        || status.getTerm() == null) {
      return new ElectionState(null, term, reserved, null, null, 0, null, RouteConvergence.IDLE);
    }
    HolderRecord holder =
        new HolderRecord(
            clusterId, namespace, status.getLeader(), status.getLeaderUID(), status.getTerm());
    FailoverDamping.Pending pending = null;
    PendingFailover p = status.getPendingFailover();
    if (p != null && status.getLeader().equals(p.getPod())) {
      try {
        pending =
            new FailoverDamping.Pending(
                p.getPod(),
                status.getLeaderUID(),
                Instant.parse(p.getNotReadySince()),
                Instant.parse(p.getFailoverAt()));
      } catch (RuntimeException unreadable) {
        // the wait starts again from now
      }
    }
    return new ElectionState(
        holder,
        term,
        reserved,
        status.getLeaderSince(),
        status.getLeader(),
        0,
        pending,
        RouteConvergence.IDLE);
  }

  /** A term counter read from Redis (-1 when not read). */
  ElectionState termSeen(long term) {
    return term > 0 ? withTerms(Math.max(maxTerm, term), reserved) : this;
  }

  /** A reservation recorded in the status, by the act step or the status write. */
  ElectionState reservedUpTo(long ceiling) {
    return ceiling > reserved ? withTerms(maxTerm, ceiling) : this;
  }

  /** What the act step did, whether it finished or stopped midway. */
  ElectionState record(ElectionOutcome o) {
    String promoted = promotedPod;
    if (o.labeledLeader() != null) {
      promoted = o.labeledLeader();
    } else if (promoted != null && o.demoted().contains(promoted)) {
      promoted = null;
    }
    long term = o.holder() == null ? maxTerm : Math.max(maxTerm, o.holder().term());
    return new ElectionState(
        o.holder(),
        term,
        Math.max(reserved, o.reserved()),
        o.holder() == null ? null : o.leaderSince(),
        promoted,
        viewsDisagreeSinceMillis,
        pendingFailover,
        routing);
  }

  ElectionState pending(FailoverDamping.Pending p) {
    return new ElectionState(
        holder, maxTerm, reserved, leaderSince, promotedPod, viewsDisagreeSinceMillis, p, routing);
  }

  ElectionState routed(RouteConvergence r) {
    return new ElectionState(
        holder,
        maxTerm,
        reserved,
        leaderSince,
        promotedPod,
        viewsDisagreeSinceMillis,
        pendingFailover,
        r);
  }

  ElectionState viewsDisagreeSince(long millis) {
    return new ElectionState(
        holder, maxTerm, reserved, leaderSince, promotedPod, millis, pendingFailover, routing);
  }

  private ElectionState withTerms(long term, long ceiling) {
    return new ElectionState(
        holder,
        term,
        ceiling,
        leaderSince,
        promotedPod,
        viewsDisagreeSinceMillis,
        pendingFailover,
        routing);
  }
}
