package dev.baton.agent.leadership;

/**
 * What {@code GET /v1/leadership} answers: whether this pod leads by the gate's rule, with which
 * term, in which group, since when, and which pod of the group leads.
 *
 * @param term while leading, else null
 * @param group the pod's {@code baton.dev/leader-group} annotation, or null
 * @param since while leading, the pod's {@code baton.dev/leader-since} annotation, else null
 * @param leaderPod the pod whose agent holds the group's gate key (this pod while it leads), or
 *     null when none does or the agent has no Redis
 * @param leaderTerm that pod's term, or null
 * @param leaderIp that pod's IP as its agent wrote it into its hold, or null
 */
public record LeadershipView(
    boolean leader,
    Long term,
    String pod,
    String group,
    String since,
    String leaderPod,
    Long leaderTerm,
    String leaderIp) {

  /** The same pod's answer once it no longer leads. */
  LeadershipView notLeading() {
    boolean self = pod.equals(leaderPod);
    return new LeadershipView(
        false,
        null,
        pod,
        group,
        null,
        self ? null : leaderPod,
        self ? null : leaderTerm,
        self ? null : leaderIp);
  }
}
