package dev.baton.operator.leadergroup;

import dev.baton.client.HolderRecord;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.pods.Candidate;
import java.util.List;
import java.util.Optional;

/**
 * The election decision as a pure function: candidates, what Redis says, and a switchover request
 * in; what to do out. Deterministic, so two operator replicas never disagree.
 */
public final class Election {

  private Election() {}

  /** What Redis holds for this election. */
  public sealed interface Holder {
    /** Nobody holds the lease. */
    record Free() implements Holder {}

    /** A record this operator's cluster wrote. */
    record Ours(HolderRecord record, String raw) implements Holder {}

    /** A record from another cluster, or a value Baton did not write: left to its TTL. */
    record Foreign(String raw) implements Holder {}
  }

  /** The outcome of a switchover request, if there was one. */
  public enum SwitchoverOutcome {
    NONE,
    DONE,
    REFUSED
  }

  /** What the reconciler must carry out. */
  public enum Action {
    /** The holder stays leader; renew its lease. */
    KEEP,
    /** Acquire (or take over) the lease for a new leader, then label it. */
    ELECT,
    /** Nobody may lead: release our lease if any, demote everybody. */
    RELEASE,
    /** Another cluster holds the lease: our pods are all followers, Redis is left alone. */
    STAND_ASIDE
  }

  /**
   * @param leader the pod to lead after this step (KEEP, ELECT), else null
   * @param reason why (ELECT, RELEASE, STAND_ASIDE), null for a plain KEEP
   * @param switchoverMessage what to say about a switchover request
   */
  public record Decision(
      Action action,
      Candidate leader,
      EventReason reason,
      SwitchoverOutcome switchover,
      String switchoverMessage) {}

  /**
   * Decides the next step.
   *
   * @param candidates the group's candidate pods (conflicted pods already removed)
   * @param holder what Redis holds
   * @param switchoverTo the pod named by the switchover annotation, or null
   * @param namespace the group's namespace: a record of ours for another namespace is foreign
   */
  public static Decision decide(
      List<Candidate> candidates, Holder holder, String switchoverTo, String namespace) {
    return decide(candidates, holder, switchoverTo, namespace, false);
  }

  /**
   * Decides the next step, with flap damping.
   *
   * @param keepNotReadyHolder the holder's pod is not ready, but for less than spec.failoverDelay:
   *     it stays leader unless a switchover names another pod. Only not-ready is damped; a holder
   *     that is terminating, gone or on a lost node is replaced at once.
   */
  public static Decision decide(
      List<Candidate> candidates,
      Holder holder,
      String switchoverTo,
      String namespace,
      boolean keepNotReadyHolder) {
    if (holder instanceof Holder.Ours ours && !ours.record().namespace().equals(namespace)) {
      holder = new Holder.Foreign(ours.raw());
    }
    if (holder instanceof Holder.Foreign) {
      return new Decision(
          Action.STAND_ASIDE,
          null,
          EventReason.LeaderInOtherCluster,
          switchoverTo == null ? SwitchoverOutcome.NONE : SwitchoverOutcome.REFUSED,
          switchoverTo == null ? null : "the lease is held outside this cluster");
    }
    List<Candidate> eligible =
        candidates.stream().filter(Candidate::eligible).sorted(Candidate.PREFERENCE).toList();
    Optional<Candidate> holderPod =
        holder instanceof Holder.Ours ours
            ? candidates.stream().filter(c -> c.uid().equals(ours.record().uid())).findFirst()
            : Optional.empty();

    if (switchoverTo != null) {
      return switchover(candidates, holder, holderPod, eligible, keepNotReadyHolder, switchoverTo);
    }
    return decideWithoutSwitchover(candidates, holder, holderPod, eligible, keepNotReadyHolder);
  }

  /** A switchover to a ready candidate is carried out; to any other pod, refused. */
  private static Decision switchover(
      List<Candidate> candidates,
      Holder holder,
      Optional<Candidate> holderPod,
      List<Candidate> eligible,
      boolean keepNotReadyHolder,
      String switchoverTo) {
    Optional<Candidate> target =
        candidates.stream().filter(c -> c.name().equals(switchoverTo)).findFirst();
    String refused =
        target.isEmpty()
            ? "pod " + switchoverTo + " is not a candidate"
            : !target.get().eligible() ? "pod " + switchoverTo + " is not ready" : null;
    if (refused != null) {
      return refuseSwitchover(candidates, holder, holderPod, eligible, keepNotReadyHolder, refused);
    }
    if (holderPod.isPresent() && holderPod.get().uid().equals(target.get().uid())) {
      return new Decision(
          Action.KEEP, target.get(), null, SwitchoverOutcome.DONE, switchoverTo + " already leads");
    }
    return new Decision(
        Action.ELECT,
        target.get(),
        EventReason.Switchover,
        SwitchoverOutcome.DONE,
        "leadership moved to " + switchoverTo);
  }

  private static Decision refuseSwitchover(
      List<Candidate> candidates,
      Holder holder,
      Optional<Candidate> holderPod,
      List<Candidate> eligible,
      boolean keepNotReadyHolder,
      String why) {
    Decision d =
        decideWithoutSwitchover(candidates, holder, holderPod, eligible, keepNotReadyHolder);
    return new Decision(d.action(), d.leader(), d.reason(), SwitchoverOutcome.REFUSED, why);
  }

  private static Decision decideWithoutSwitchover(
      List<Candidate> candidates,
      Holder holder,
      Optional<Candidate> holderPod,
      List<Candidate> eligible,
      boolean keepNotReadyHolder) {
    if (holderPod.isPresent()
        && (holderPod.get().eligible()
            || keepNotReadyHolder
                && holderPod.get().notEligibleBecause() == Candidate.Ineligibility.NOT_READY)) {
      return new Decision(Action.KEEP, holderPod.get(), null, SwitchoverOutcome.NONE, null);
    }
    if (eligible.isEmpty()) {
      return new Decision(
          Action.RELEASE, null, EventReason.NoCandidates, SwitchoverOutcome.NONE, null);
    }
    if (holder instanceof Holder.Free) {
      // Sticky: a lease lost with Redis's data, or not yet written, goes back to the pod that
      // already carries the leader label, so routing does not move.
      Candidate next =
          eligible.stream().filter(Candidate::labeledLeader).findFirst().orElse(eligible.get(0));
      boolean hadLeader = candidates.stream().anyMatch(Candidate::labeledLeader);
      return new Decision(
          Action.ELECT,
          next,
          hadLeader ? EventReason.LeaseExpired : EventReason.Initial,
          SwitchoverOutcome.NONE,
          null);
    }
    EventReason why =
        holderPod
            .map(
                p ->
                    switch (p.notEligibleBecause()) {
                      case TERMINATING -> EventReason.LeaderTerminating;
                      case NODE_LOST -> EventReason.LeaderNodeLost;
                      case OPTED_OUT, AGENT_MISSING -> EventReason.LeaderOptedOut;
                      default -> EventReason.LeaderNotReady;
                    })
            .orElse(EventReason.LeaderDeleted);
    return new Decision(Action.ELECT, eligible.get(0), why, SwitchoverOutcome.NONE, null);
  }
}
