package dev.baton.operator.leadergroup;

import dev.baton.operator.pods.Candidate;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;

/**
 * spec.failoverDelay (docs/design.md, "Flap damping"): a leader whose pod turned not ready keeps
 * leading until it has stayed not ready for the delay. The clock starts when this operator first
 * saw it not ready, or at the time the status recorded, so an operator restart does not restart the
 * wait.
 */
final class FailoverDamping {

  /** A not-ready leader being waited for. */
  record Pending(String pod, String uid, Instant notReadySince, Instant failoverAt) {}

  /**
   * @param pending the leader is kept for now, or null
   * @param averted a pending failover ended because the leader became ready again (or left)
   */
  record Verdict(Pending pending, String averted) {
    boolean keepHolder() {
      return pending != null;
    }
  }

  private FailoverDamping() {}

  /**
   * Whether the holder is kept, and the pending failover from now on, which the caller records in
   * place of {@code before} (a pure function: the same inputs, the same verdict).
   *
   * @param before the pending failover recorded by the last reconcile, or null
   */
  static Verdict judge(
      Duration delay,
      List<Candidate> candidates,
      Election.Holder holder,
      String switchoverTo,
      Pending before,
      Instant now) {
    Optional<Candidate> holderPod =
        holder instanceof Election.Holder.Ours ours
            ? candidates.stream().filter(c -> c.uid().equals(ours.record().uid())).findFirst()
            : Optional.empty();
    boolean notReady =
        holderPod.isPresent()
            && holderPod.get().notEligibleBecause() == Candidate.Ineligibility.NOT_READY;
    if (delay.isZero() || !notReady || switchoverTo != null) {
      boolean recovered = before != null && holderPod.map(Candidate::eligible).orElse(false);
      return new Verdict(null, recovered ? before.pod() : null);
    }
    Candidate pod = holderPod.get();
    Pending pending =
        before != null && before.uid().equals(pod.uid())
            ? new Pending(
                before.pod(),
                before.uid(),
                before.notReadySince(),
                before.notReadySince().plus(delay))
            : new Pending(pod.name(), pod.uid(), now, now.plus(delay));
    if (!now.isBefore(pending.failoverAt())) {
      return new Verdict(null, null);
    }
    return new Verdict(pending, null);
  }
}
