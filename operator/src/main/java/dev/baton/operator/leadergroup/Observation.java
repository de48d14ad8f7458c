package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.operator.pods.Candidate;
import java.time.Instant;

/**
 * Everything one reconcile decides and plans from, read once: nothing in it changes during the
 * reconcile, and nothing was written to make it.
 *
 * @param state what the operator remembered of the election when the reconcile began, with the term
 *     counter just read
 * @param old the status as the cache shows it
 * @param now when the observation was made
 */
record Observation(
    String clusterId,
    LeaderGroup group,
    GroupSettings settings,
    PodView pods,
    LeaseView lease,
    ElectionState state,
    LeaderGroupStatus old,
    Instant now) {

  String namespace() {
    return group.getMetadata().getNamespace();
  }

  /** The pod that led before this reconcile: Redis's holder, else the one promoted last. */
  String previousLeader() {
    return lease.holder() instanceof Election.Holder.Ours o
        ? o.record().pod()
        : state.promotedPod();
  }

  /**
   * Whether this pod led before the reconcile: by uid when known, since a pod recreated under the
   * same name (a StatefulSet's) is another pod.
   */
  boolean ledBefore(Candidate leader) {
    String previous = previousLeader();
    if (leader == null || previous == null) {
      return false;
    }
    String uid =
        lease.holder() instanceof Election.Holder.Ours o
            ? o.record().uid()
            : state.holder() != null && state.holder().pod().equals(previous)
                ? state.holder().uid()
                : null;
    return uid != null ? leader.uid().equals(uid) : leader.name().equals(previous);
  }
}
