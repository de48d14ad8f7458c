package dev.baton.operator.redislock;

import dev.baton.client.InstanceView;
import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import dev.baton.operator.pods.Candidate;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The RedisLock decision as a pure function: a {@link LockWorld} in, the whole plan of {@link
 * LockStep}s out, which the act step carries out in order without deciding again. Deterministic, so
 * two operator replicas decide alike.
 *
 * <p>A plan is {@link #decide} applied to the world each step leaves as it predicts it: a release
 * deletes its values, a renewal either wins every instance or is refused, and the refused branch is
 * planned as well (it is known beforehand: Redis as it was read). What the prediction cannot know,
 * an acquire refused because someone took the lock in between, ends the plan there, to look again
 * in a moment.
 *
 * <p>In order: a force-release asked for; the locks of dead pods; then, without a holder selector,
 * report the holder (taking back an old grant of ours first); with one, keep the grant with its pod
 * while the pod is eligible (renewing it when due), else move it, grant a free lock to the best
 * candidate, or stand aside for a holder that is not ours.
 */
final class LockDecision {

  /** The most steps one plan holds before it waits and looks again. */
  static final int MAX_STEPS = 8;

  private LockDecision() {}

  /**
   * The plan for one reconcile, ending with a last step.
   *
   * @param reserveTokens the read showed too few tokens reserved: reserving comes first
   */
  static List<LockStep> plan(LockWorld w, boolean reserveTokens) {
    List<LockStep> steps = new ArrayList<>();
    if (reserveTokens) {
      steps.add(new LockStep.Reserve());
    }
    steps.addAll(plan(w, MAX_STEPS));
    return List.copyOf(steps);
  }

  private static List<LockStep> plan(LockWorld w, int budget) {
    List<LockStep> steps = new ArrayList<>();
    for (int i = 0; i < budget; i++) {
      LockStep step = decide(w);
      if (step instanceof LockStep.Renew r) {
        int left = budget - i - 1;
        steps.add(r.orElse(plan(w.renewed(false, w.view(), r.value()), left)));
        w = w.renewed(true, heldEverywhere(w.view(), r.value(), r.token()), r.value());
        continue;
      }
      steps.add(step);
      if (step.last()) {
        return steps;
      }
      w = predicted(w, step);
    }
    steps.add(new LockStep.Wait());
    return steps;
  }

  /** The world a step that changes Redis leaves, as far as it can be known beforehand. */
  private static LockWorld predicted(LockWorld w, LockStep step) {
    if (step instanceof LockStep.ForceRelease f) {
      return w.withView(without(w.view(), f.values()), w.podAlive()).forceReleased();
    }
    if (step instanceof LockStep.Reap r) {
      return w.withView(without(w.view(), r.values()), w.podAlive()).reapedDead();
    }
    if (step instanceof LockStep.Reclaim c) {
      return w.withView(without(w.view(), List.of(c.value())), w.podAlive());
    }
    if (step instanceof LockStep.Move m) {
      return w.withView(without(w.view(), List.of(m.value())), w.podAlive())
          .moved(m.from().namespace() + "/" + m.from().name(), m.because());
    }
    throw new IllegalArgumentException("not a step that changes Redis: " + step);
  }

  /** Redis after the values were deleted where they were held. */
  private static LockView without(LockView view, List<String> values) {
    List<InstanceView> out = new ArrayList<>();
    for (InstanceView i : view.instances()) {
      out.add(
          i.value() != null && values.contains(i.value())
              ? new InstanceView(
                  i.name(),
                  i.reachable(),
                  i.ok(),
                  null,
                  -2,
                  i.counter(),
                  i.reserved(),
                  i.unreserved(),
                  i.error())
              : i);
    }
    return new LockView(out, view.quorum());
  }

  /** Redis after a renewal won every instance that answered, free or held by the same value. */
  private static LockView heldEverywhere(LockView view, String value, long token) {
    List<InstanceView> out = new ArrayList<>();
    for (InstanceView i : view.instances()) {
      out.add(
          i.reachable() && i.value() == null
              ? new InstanceView(
                  i.name(), true, i.ok(), value, i.pttlMillis(), token, i.reserved(), false, null)
              : i);
    }
    return new LockView(out, view.quorum());
  }

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
      return new LockStep.Report(holder, !w.labeled().isEmpty());
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
        boolean refused = lead.equals(w.renewedNow()) && !lead.equals(w.granted());
        if (lead.equals(holder) && !refused) {
          return keep(w, pod, lead);
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
          ? new LockStep.NoCandidates(w.movedFrom(), w.movedBecause(), unlabel(w, null))
          : new LockStep.Grant(target, w.movedFrom(), w.movedBecause());
    }
    String lostFrom = w.held() == null ? null : w.held().pod().name();
    return new LockStep.StandAside(
        holder, lostFrom, lostFrom == null ? unlabel(w, null) : List.of());
  }

  /**
   * The grant stays with {@code pod}: an adoption when it is not the grant the state named, whose
   * token is then Redis's; the other pods' labels come off first.
   */
  static LockStep.Keep keep(LockWorld w, LockWorld.LockCandidate pod, String value) {
    boolean adopted = w.held() == null || !value.equals(w.held().value());
    return new LockStep.Keep(
        pod,
        value,
        adopted ? w.view().tokenOf(value) : w.held().token(),
        adopted,
        unlabel(w, pod.pod().uid()));
  }

  /**
   * The pods whose label and annotation come off where nothing changes hands: the selected pods and
   * every pod that carries them, as the cache showed them, but the one with {@code keepUid} (null:
   * none kept).
   */
  static List<Pod> unlabel(LockWorld w, String keepUid) {
    Map<String, Pod> out = new LinkedHashMap<>();
    w.candidates().forEach(c -> out.put(c.seen().getMetadata().getUid(), c.seen()));
    w.labeled().forEach(p -> out.putIfAbsent(p.getMetadata().getUid(), p));
    if (keepUid != null) {
      out.remove(keepUid);
    }
    return List.copyOf(out.values());
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
      case AGENT_MISSING -> "runs without the agent it asks for";
      case NONE -> "lost its majority";
    };
  }
}
