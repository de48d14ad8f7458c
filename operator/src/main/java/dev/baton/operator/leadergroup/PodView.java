package dev.baton.operator.leadergroup;

import dev.baton.operator.pods.Candidate;
import java.util.List;

/**
 * A group's pods as the observe step found them: who may run, who is ready, and a switchover asked
 * for.
 *
 * @param promotedCached the informer still holds the pod this operator labeled leader last
 */
record PodView(
    Membership membership,
    List<Candidate> candidates,
    int ready,
    String switchoverTo,
    boolean promotedCached) {}
