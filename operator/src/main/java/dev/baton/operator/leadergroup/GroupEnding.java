package dev.baton.operator.leadergroup;

import dev.baton.operator.kube.EventReason;
import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.lease.RedisUnavailableException;
import java.time.Duration;

/**
 * How one LeaderGroup reconcile ended, as the reconciler tells the reporter once: one record per
 * path, each holding what that path found and did, so the reporter reads a path, not a pattern of
 * nulls. The lock's reconciler ends the same way ({@code redislock/LockEnding}).
 */
sealed interface GroupEnding {

  /** What the reconcile looked at first; null when the spec was invalid and nothing was. */
  default Looked looked() {
    return null;
  }

  /**
   * The spec cannot be used, or its key is not this group's (docs/design.md, "Multi-tenant
   * clusters"): nothing else was looked at, nothing written to Redis.
   *
   * @param reason the conditions' reason
   * @param event the Event's reason
   */
  record Invalid(String reason, EventReason event, String message) implements GroupEnding {

    /** A spec the operator cannot use. */
    Invalid(String message) {
      this("InvalidSpec", EventReason.InvalidSpec, message);
    }
  }

  /**
   * What every valid reconcile looks at first.
   *
   * @param pods the members, candidates and conflicts
   * @param roleLabel the label the group writes
   * @param renewInterval how often the lease is renewed: the pace of a group whose Redis is down or
   *     that is paused
   */
  record Looked(PodView pods, String roleLabel, Duration renewInterval) {

    /** What a reconcile that read these settings and found these pods looked at. */
    static Looked of(PodView pods, GroupSettings settings) {
      return new Looked(pods, settings.roleLabel(), settings.renewInterval());
    }
  }

  /**
   * The group's Secret is missing or unusable: Redis was not asked.
   *
   * @param paused the group is paused (its membership is not reported then)
   */
  record SecretMissing(Looked looked, boolean paused, RedisSecrets.SecretProblem problem)
      implements GroupEnding {}

  /**
   * Redis stopped answering: at the read, in a paused group's renewal, or in the act step.
   *
   * @param paused the group is paused
   * @param answered the read answered, and the act step lost Redis after it
   */
  record RedisDown(Looked looked, boolean paused, boolean answered, RedisUnavailableException cause)
      implements GroupEnding {}

  /** Paused: the leader whose lease is kept, or null when there is none. */
  record Paused(Looked looked, String leader) implements GroupEnding {}

  /**
   * The act step stopped before its end: the lease changed under us (decided again at once) or a
   * write failed (thrown for JOSDK's retry). No status is written.
   */
  record Stopped(Looked looked, Elected elected) implements GroupEnding {}

  /**
   * The whole reconcile ran: elected, routed, and the three views checked.
   *
   * @param next when to reconcile again, as the steps asked, or null
   */
  record Carried(
      Looked looked,
      Elected elected,
      GroupRouting.Routed routed,
      SplitBrainCheck.Finding views,
      Duration next)
      implements GroupEnding {}

  /** The election: what was observed and decided, and what the act step did with it. */
  record Elected(
      Observation seen,
      Election.Decision decision,
      FailoverDamping.Verdict damping,
      ElectionOutcome outcome) {}
}
