package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.operator.kube.BatonNames;
import dev.baton.operator.kube.ConditionType;
import dev.baton.operator.kube.Conditions;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.kube.EventRecorder;
import dev.baton.operator.kube.Metadata;
import dev.baton.operator.routing.LeaderServices;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compares the three views of the leader (docs/design.md, "Three views agree") and raises
 * SplitBrainSuspected when they have disagreed for longer than one renew interval. The operator's
 * own label writes reach the informer a moment later, so a fresh disagreement is only checked again
 * after one interval, not reported.
 */
final class SplitBrainCheck {

  private static final Logger log = LoggerFactory.getLogger(SplitBrainCheck.class);

  private final LeaderServices sources;
  private final EventRecorder events;
  private final Clock clock;

  SplitBrainCheck(LeaderServices sources, EventRecorder events, Clock clock) {
    this.sources = sources;
    this.events = events;
    this.clock = clock;
  }

  /** Sets the condition and says when to look again: soon while the views disagree. */
  Duration check(
      LeaderGroup group,
      ElectionState state,
      GroupSettings settings,
      Membership membership,
      Conditions conditions,
      boolean leaderKeptNotReady) {
    String ns = group.getMetadata().getNamespace();
    String name = group.getMetadata().getName();
    Set<String> labeled = new HashSet<>();
    for (Pod p : membership.members()) {
      if (BatonNames.LEADER.equals(Metadata.label(p, settings.roleLabel()))) {
        labeled.add(p.getMetadata().getName());
      }
    }
    String holder = state.holder == null ? null : state.holder.pod();
    String disagreement =
        new ThreeViews(
                holder,
                labeled,
                // A not-ready leader kept by spec.failoverDelay has left its Services on purpose.
                leaderKeptNotReady
                    ? null
                    : sources.routedPods(ns, settings.roleLabel(), membership.members()))
            .disagreement();
    long now = clock.millis();
    if (disagreement == null) {
      state.viewsDisagreeSinceMillis = 0;
      notSuspected(conditions);
      return resync(settings);
    }
    if (state.viewsDisagreeSinceMillis == 0) {
      state.viewsDisagreeSinceMillis = now;
    }
    if (now - state.viewsDisagreeSinceMillis > settings.renewInterval().toMillis()) {
      String message =
          disagreement + " (for more than " + settings.renewInterval().toMillis() + " ms)";
      if (!Conditions.isTrue(
          group.getStatus() == null ? null : group.getStatus().getConditions(),
          ConditionType.SplitBrainSuspected)) {
        log.warn("LeaderGroup {}/{}: split brain suspected: {}", ns, name, message);
        events.record(group, EventReason.SplitBrainSuspected, message);
      }
      conditions.set(ConditionType.SplitBrainSuspected, true, "ViewsDisagree", message);
    } else if (Conditions.find(
            group.getStatus() == null ? null : group.getStatus().getConditions(),
            ConditionType.SplitBrainSuspected)
        .isEmpty()) {
      // A new group, whose cache has not shown its first labels yet: nothing is suspected before
      // a disagreement outlives the interval. Said in the status write this reconcile makes
      // anyway, rather than in one more write a moment later.
      notSuspected(conditions);
    } else {
      conditions.keep(ConditionType.SplitBrainSuspected);
    }
    return settings.renewInterval();
  }

  private static void notSuspected(Conditions conditions) {
    conditions.set(
        ConditionType.SplitBrainSuspected,
        false,
        "ViewsAgree",
        "no disagreement between Redis, the pod labels and the leader Service endpoints has"
            + " outlived a renew interval");
  }

  /**
   * The safety-net timer: events and the renewer drive everything, so this only catches what no
   * event announced. Twenty renew intervals, at least 60 s, at most 10 min.
   */
  static Duration resync(GroupSettings settings) {
    long nanos = settings.renewInterval().toNanos() * 20;
    return Duration.ofNanos(
        Math.min(
            Math.max(nanos, Duration.ofSeconds(60).toNanos()), Duration.ofMinutes(10).toNanos()));
  }
}
