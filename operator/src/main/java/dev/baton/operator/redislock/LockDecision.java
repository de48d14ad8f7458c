package dev.baton.operator.redislock;

import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import dev.baton.operator.pods.Candidate;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The RedisLock decision as a pure function: a {@link LockWorld} in, the next {@link LockStep} out.
 * Deterministic, so two operator replicas decide alike; the reconciler carries each step out and
 * asks again until a step is the last.
 *
 * <p>In order: a force-release asked for; the locks of dead pods; then, without a holder selector,
 * report the holder (taking back an old grant of ours first); with one, keep the grant with its pod
 * while the pod is eligible (renewing it when due), else move it, grant a free lock to the best
 * candidate, or stand aside for a holder that is not ours.
 */
final class LockDecision {

  /** The most steps one reconcile takes before it looks again later. */
  static final int MAX_STEPS = 8;

  private LockDecision() {}

  static LockStep decide(LockWorld w) {
    LockView view = w.view();
    if (w.forceRelease()) {
      return new LockStep.ForceRelease(List.copyOf(view.values()));
    }
    if (!w.reaped()) {
      List<String> dead = reapable(w);
      if (!dead.isEmpty()) {
        return new LockStep.Reap(dead);
      }
    }
    String holder = view.holder();
    if (!w.grants()) {
      if (holder != null && LockLabels.grantedHere(holder, w.clusterId()).isPresent()) {
        return new LockStep.Reclaim(holder);
      }
      return new LockStep.Report(holder);
    }
    String lead = view.mostHeld();
    Optional<LockValues.PodRef> ours =
        lead == null ? Optional.empty() : LockLabels.grantedHere(lead, w.clusterId());
    if (ours.isPresent()) {
      LockWorld.LockCandidate pod = eligible(w, ours.get());
      if (pod != null) {
        boolean renewedNow = lead.equals(w.granted()) && w.renewedRecently();
        if ((!lead.equals(holder) || !renewedNow) && !lead.equals(w.renewedNow())) {
          // Adopt a grant of this cluster (restart, second replica), renew it when due, or win
          // back instances that lost it; a renew refuses if anyone acquired the lock since.
          return new LockStep.Renew(lead, view.tokenOf(lead));
        }
        if (lead.equals(holder)) {
          return new LockStep.Keep(pod, lead, view.tokenOf(lead));
        }
      }
      if (!w.mayMove()) {
        return new LockStep.Wait();
      }
      return new LockStep.Move(
          lead, ours.get(), pod != null ? "lost its majority" : whyNot(w, ours.get(), lead));
    }
    if (holder == null) {
      LockWorld.LockCandidate target = choose(w.candidates());
      return target == null
          ? new LockStep.NoCandidates(w.movedFrom(), w.movedBecause())
          : new LockStep.Grant(target, w.movedFrom(), w.movedBecause());
    }
    return new LockStep.StandAside(holder);
  }

  /**
   * Values naming a pod that is gone (or exists with another uid). Values without a pod only
   * expire; so do grants of other clusters, whose pods this API cannot see; with a holder selector,
   * this operator's own grants are moved instead, labels first.
   */
  static List<String> reapable(LockWorld w) {
    List<String> out = new ArrayList<>();
    for (String value : w.view().values()) {
      if (LockValues.parsePod(value).isEmpty()) {
        continue;
      }
      boolean ours = LockLabels.grantedHere(value, w.clusterId()).isPresent();
      if (LockLabels.isGrant(value) && !ours || ours && w.grants()) {
        continue;
      }
      if (!w.podAlive().getOrDefault(value, true)) {
        out.add(value);
      }
    }
    return out;
  }

  /**
   * The pod to grant to: the eligible pod that carries the label already (a grant re-made after
   * Redis lost its data stays where it was), else the preferred eligible pod.
   */
  static LockWorld.LockCandidate choose(List<LockWorld.LockCandidate> candidates) {
    List<LockWorld.LockCandidate> ready =
        candidates.stream().filter(c -> c.pod().eligible()).toList();
    return ready.stream()
        .filter(LockWorld.LockCandidate::carriesLabel)
        .findFirst()
        .or(
            () ->
                ready.stream()
                    .min(Comparator.comparing(LockWorld.LockCandidate::pod, Candidate.PREFERENCE)))
        .orElse(null);
  }

  private static LockWorld.LockCandidate eligible(LockWorld w, LockValues.PodRef ref) {
    return w.candidates().stream()
        .filter(
            c ->
                c.namespace().equals(ref.namespace())
                    && c.pod().uid().equals(ref.uid())
                    && c.pod().eligible())
        .findFirst()
        .orElse(null);
  }

  private static String whyNot(LockWorld w, LockValues.PodRef ref, String value) {
    Optional<LockWorld.LockCandidate> pod =
        w.candidates().stream()
            .filter(c -> c.namespace().equals(ref.namespace()) && c.pod().uid().equals(ref.uid()))
            .findFirst();
    if (pod.isEmpty()) {
      return w.podAlive().getOrDefault(value, false) ? "is no longer selected" : "is gone";
    }
    return switch (pod.get().pod().notEligibleBecause()) {
      case TERMINATING -> "is terminating";
      case NOT_READY -> "is not ready";
      case NODE_LOST -> "is on a node that is not ready";
      case OPTED_OUT -> "is annotated baton.dev/candidate=false";
      case NONE -> "lost its majority";
    };
  }
}
