package dev.baton.operator.leadergroup;

import dev.baton.client.BatonNames;
import dev.baton.operator.kube.Metadata;
import dev.baton.operator.routing.LeaderServices;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;

/**
 * Compares the three views of the leader (docs/design.md, "Three views agree") and times how long
 * they have disagreed: a split brain is suspected once they disagree for longer than one renew
 * interval. The operator's own label writes reach the informer a moment later, so a fresh
 * disagreement is only checked again after one interval. Reports nothing: the report step does.
 */
final class SplitBrainCheck {

  /**
   * What the check found.
   *
   * @param disagreement the views' disagreement, or null when they agree
   * @param sinceMillis when the disagreement started (epoch millis), or 0: to keep for the next
   * @param outlived the disagreement has outlived a renew interval: a split brain is suspected
   * @param lookAgainIn when to check again without an event
   */
  record Finding(String disagreement, long sinceMillis, boolean outlived, Duration lookAgainIn) {}

  private final LeaderServices sources;

  SplitBrainCheck(LeaderServices sources) {
    this.sources = sources;
  }

  /**
   * Checks the views once the act step carried the plan out.
   *
   * @param state the state the act step and routing left, whose holder and disagreement it reads
   */
  Finding check(Observation seen, GroupPlan plan, ElectionState state, long nowMillis) {
    return check(
        seen.namespace(),
        state.holder() == null ? null : state.holder().pod(),
        seen.settings(),
        seen.pods().membership(),
        plan.damping().keepHolder(),
        state.viewsDisagreeSinceMillis(),
        nowMillis);
  }

  /**
   * @param holder the pod this operator holds the lease for, or null
   * @param sinceMillis when the views started to disagree, as the last check found, or 0
   * @param leaderKeptNotReady a not-ready leader kept by spec.failoverDelay, which has left its
   *     Services on purpose
   */
  Finding check(
      String namespace,
      String holder,
      GroupSettings settings,
      Membership membership,
      boolean leaderKeptNotReady,
      long sinceMillis,
      long nowMillis) {
    Set<String> labeled = new HashSet<>();
    for (Pod p : membership.members()) {
      if (BatonNames.LEADER.equals(Metadata.label(p, settings.roleLabel()))) {
        labeled.add(p.getMetadata().getName());
      }
    }
    String disagreement =
        new ThreeViews(
                holder,
                labeled,
                leaderKeptNotReady
                    ? null
                    : sources.routedPods(namespace, settings.roleLabel(), membership.members()))
            .disagreement();
    if (disagreement == null) {
      return new Finding(null, 0, false, settings.resync());
    }
    long since = sinceMillis == 0 ? nowMillis : sinceMillis;
    return new Finding(
        disagreement,
        since,
        nowMillis - since > settings.renewInterval().toMillis(),
        settings.renewInterval());
  }
}
