package dev.baton.operator.leadergroup;

import dev.baton.client.HolderRecord;
import java.util.List;

/**
 * What the act step did, whether it finished or stopped midway.
 *
 * @param holder the holder record this operator holds after the step, or null
 * @param leaderSince when that holder became leader
 * @param demoted names of the pods demoted in this step
 * @param labeledLeader the pod labeled leader in this step, or null
 * @param reserved the term reservation made in this step, or 0
 * @param retrySoon the lease changed under us between read and write: decide again at once
 * @param failure what stopped the step midway (Redis stopped answering, an API write failed), or
 *     null; whatever was done so far leaves at most one pod labeled leader
 */
record ElectionOutcome(
    HolderRecord holder,
    String leaderSince,
    List<String> demoted,
    String labeledLeader,
    long reserved,
    boolean retrySoon,
    RuntimeException failure) {}
