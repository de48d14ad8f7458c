package dev.baton.operator.leadergroup;

import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.lease.RedisUnavailableException;
import java.time.Duration;

/**
 * What one reconcile of a group found and did, step by step: the record {@link GroupReporter} is
 * given once, at the end. Each step's result is a value; a step that was not reached is null.
 *
 * @param invalid why the spec cannot be used, or null
 * @param pods the members, candidates and conflicts, or null when the spec is invalid
 * @param roleLabel the label the group writes
 * @param paused the paused path's result, or null when the group is not paused
 * @param secretProblem the group's Secret is missing or unusable, or null
 * @param redisAnswered Redis answered the read of the lease (or the paused renewal)
 * @param redisDown Redis stopped answering, at the read or in the act step, or null
 * @param elected the decision and what the act step did with it, or null
 * @param routed what the routing step wrote and found, or null
 * @param views what the check of the three views found, or null
 * @param renewInterval how often the lease is renewed, the pace of a group whose Redis is down
 * @param next when to reconcile again, as the steps asked
 */
record GroupRun(
    String invalid,
    GroupObserver.PodView pods,
    String roleLabel,
    Paused paused,
    RedisSecrets.SecretProblem secretProblem,
    boolean redisAnswered,
    RedisUnavailableException redisDown,
    Elected elected,
    GroupRouting.Routed routed,
    SplitBrainCheck.Finding views,
    Duration renewInterval,
    Duration next) {

  /** Paused: the leader whose lease is kept, or null when there is none. */
  record Paused(String leader) {}

  /**
   * The election: what was observed and decided, and the act step's outcome (its {@code retrySoon}
   * and {@code failure} end the reconcile before routing).
   */
  record Elected(
      GroupObserver.Observation seen,
      Election.Decision decision,
      FailoverDamping.Verdict damping,
      ElectionActuator.Outcome outcome) {}

  static GroupRun invalid(String message) {
    return new GroupRun(message, null, null, null, null, false, null, null, null, null, null, null);
  }

  /** A valid group whose pods were looked at. */
  static GroupRun looked(GroupObserver.PodView pods, GroupSettings settings) {
    return new GroupRun(
        null,
        pods,
        settings.roleLabel(),
        null,
        null,
        false,
        null,
        null,
        null,
        null,
        settings.renewInterval(),
        null);
  }

  GroupRun pausedWith(String leader) {
    return new GroupRun(
        invalid,
        pods,
        roleLabel,
        new Paused(leader),
        secretProblem,
        leader != null,
        redisDown,
        elected,
        routed,
        views,
        renewInterval,
        renewInterval);
  }

  GroupRun withSecretProblem(RedisSecrets.SecretProblem e) {
    return new GroupRun(
        invalid,
        pods,
        roleLabel,
        paused,
        e,
        redisAnswered,
        redisDown,
        elected,
        routed,
        views,
        renewInterval,
        RedisSecrets.SecretProblem.RETRY);
  }

  GroupRun answered() {
    return new GroupRun(
        invalid,
        pods,
        roleLabel,
        paused,
        secretProblem,
        true,
        redisDown,
        elected,
        routed,
        views,
        renewInterval,
        next);
  }

  GroupRun withRedisDown(RedisUnavailableException e) {
    return new GroupRun(
        invalid,
        pods,
        roleLabel,
        paused,
        secretProblem,
        redisAnswered,
        e,
        elected,
        routed,
        views,
        renewInterval,
        renewInterval);
  }

  GroupRun withElected(Elected e) {
    return new GroupRun(
        invalid,
        pods,
        roleLabel,
        paused,
        secretProblem,
        redisAnswered,
        redisDown,
        e,
        routed,
        views,
        renewInterval,
        next);
  }

  GroupRun routedAndChecked(
      GroupRouting.Routed routed, SplitBrainCheck.Finding views, Duration next) {
    return new GroupRun(
        invalid,
        pods,
        roleLabel,
        paused,
        secretProblem,
        redisAnswered,
        redisDown,
        elected,
        routed,
        views,
        renewInterval,
        next);
  }
}
