package dev.baton.operator.leadergroup;

import dev.baton.client.BatonNames;
import dev.baton.client.HolderRecord;
import dev.baton.operator.kube.Metadata;
import dev.baton.operator.pods.Candidate;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Turns a decision into the effects that carry it out, in the order they must happen: a pure
 * function of the decision and the observation. The order is the break-before-make invariant
 * (docs/design.md, "One leader label"): every demotion comes before the lease changes hands, and
 * the new leader is labeled only after.
 */
final class ElectionPlan {

  /** One thing the act step does to Redis, a pod, the group or the renewer. */
  sealed interface Effect {

    /** A pod that left the group is stripped of its marks. */
    record ClearStray(Pod pod) implements Effect {}

    /** A member the cache shows labeled leader, which is not the new leader, becomes follower. */
    record Demote(Pod pod) implements Effect {}

    /**
     * The pod this operator labeled leader last becomes follower whatever the cache says of its
     * labels, which may not show that promotion yet. {@code write}: the pod informer still holds a
     * pod of that name; one it no longer holds was deleted (it was there when it was promoted) and
     * carries no label to remove, so a deleted leader costs no write.
     */
    record DemoteByName(String pod, boolean write) implements Effect {
      DemoteByName(String pod) {
        this(pod, true);
      }
    }

    /**
     * The holder keeps the lease; {@code renew}: it is renewed first (the renewer's renewal is not
     * fresh), and a refusal stops the step, to decide again at once.
     *
     * @param since when the holder became leader, for its annotation and the status
     */
    record KeepLease(HolderRecord record, String raw, boolean renew, String since)
        implements Effect {}

    /**
     * The lease is taken for the new leader, over {@code expected} ("" when free). A refusal stops
     * the step, to decide again at once.
     *
     * @param prefix the new holder record up to its term, which Redis issues
     * @param since when the new holder became leader
     */
    record AcquireLease(String expected, String prefix, String since) implements Effect {}

    /** The renewer keeps renewing the lease this step kept or acquired. */
    record HoldRenewal() implements Effect {}

    /** The renewer stops renewing this group's lease. */
    record ForgetRenewal() implements Effect {}

    /**
     * This operator holds no lease for the group from now on; {@code release}, our record in Redis,
     * is released there first (null: Redis is left alone).
     */
    record DropLease(String release) implements Effect {}

    /** The new leader is labeled, with the term and since of the lease this step holds. */
    record LabelLeader(Pod pod) implements Effect {}

    /** A member that is neither leader nor demoted in this step carries the follower marks. */
    record LabelFollower(Pod pod) implements Effect {}

    /** The switchover annotation goes: the request was carried out or refused. */
    record RemoveSwitchoverRequest() implements Effect {}

    /**
     * Terms are reserved ahead of need when less than half a block is left above the term just
     * acquired, so that the next failover waits for no status write.
     */
    record ReserveTermsAhead() implements Effect {}
  }

  private ElectionPlan() {}

  /** What the paused path does with the leader's lease, nobody being elected. */
  enum PausedHold {
    /** No leader, or its pod is gone: nothing is renewed for the group. */
    NONE,
    /** The renewer renewed the lease moments ago: nothing to send. */
    FRESH,
    /** Renewed now, then kept renewed by the renewer; Redis refusing it leaves no leader. */
    RENEW
  }

  /**
   * Paused: the leader's lease is kept while its pod exists, ready or not, so that applications
   * watching the lease keep their leader.
   *
   * @param fresh the renewer renewed the holder's lease moments ago
   */
  static PausedHold paused(HolderRecord holder, List<Candidate> candidates, boolean fresh) {
    if (holder == null || candidates.stream().noneMatch(c -> c.uid().equals(holder.uid()))) {
      return PausedHold.NONE;
    }
    return fresh ? PausedHold.FRESH : PausedHold.RENEW;
  }

  static List<Effect> plan(Election.Decision decision, Observation seen) {
    List<Effect> effects = new ArrayList<>();
    // Pods that left the group lose its marks first: a stray labeled leader is demoted before the
    // lease can change hands.
    for (Pod stray : seen.pods().membership().strays()) {
      effects.add(new Effect.ClearStray(stray));
    }
    Candidate leader = decision.leader();
    String now = seen.now().truncatedTo(ChronoUnit.SECONDS).toString();
    Set<String> demoted =
        switch (decision.action()) {
          case KEEP -> keep(leader, seen, now, effects);
          case ELECT -> elect(leader, seen, now, effects);
          case RELEASE, STAND_ASIDE -> drop(decision.action(), seen, effects);
        };
    List<Pod> members = seen.pods().membership().members();
    if (leader != null) {
      effects.add(
          new Effect.LabelLeader(
              members.stream().filter(p -> isPod(leader, p)).findFirst().orElseThrow()));
    }
    for (Pod pod : members) {
      // A pod demoted in this step is a follower already; its cached copy predates that write.
      if (!isPod(leader, pod) && !demoted.contains(pod.getMetadata().getUid())) {
        effects.add(new Effect.LabelFollower(pod));
      }
    }
    if (decision.switchover() != Election.SwitchoverOutcome.NONE) {
      effects.add(new Effect.RemoveSwitchoverRequest());
    }
    if (decision.action() == Election.Action.ELECT) {
      effects.add(new Effect.ReserveTermsAhead());
    }
    return effects;
  }

  /**
   * The holder keeps the lease, renewed first unless the renewer's renewal is fresh.
   *
   * @return the uids of the members demoted
   */
  private static Set<String> keep(
      Candidate leader, Observation seen, String now, List<Effect> effects) {
    ElectionState state = seen.state();
    Election.Holder.Ours ours = (Election.Holder.Ours) seen.lease().holder();
    String uid = ours.record().uid();
    String since =
        state.holder() != null && state.holder().uid().equals(uid)
            ? state.leaderSince()
            : Objects.equals(seen.old().getLeaderUID(), uid) ? seen.old().getLeaderSince() : now;
    boolean renew = !seen.lease().fresh();
    effects.add(new Effect.KeepLease(ours.record(), ours.raw(), renew, since));
    if (renew) {
      effects.add(new Effect.HoldRenewal());
    }
    return demoteAllBut(leader, seen, effects);
  }

  /**
   * Every other pod demoted, then the lease taken for the new leader.
   *
   * @return the uids of the members demoted
   */
  private static Set<String> elect(
      Candidate leader, Observation seen, String now, List<Effect> effects) {
    ElectionState state = seen.state();
    Set<String> demoted = demoteAllBut(leader, seen, effects);
    boolean samePod =
        state.holder() != null && state.holder().uid().equals(leader.uid())
            || leader.labeledLeader();
    String since = !samePod || state.leaderSince() == null ? now : state.leaderSince();
    effects.add(
        new Effect.AcquireLease(
            seen.lease().holder() instanceof Election.Holder.Ours o ? o.raw() : "",
            HolderRecord.prefix(seen.clusterId(), seen.namespace(), leader.name(), leader.uid()),
            since));
    effects.add(new Effect.HoldRenewal());
    return demoted;
  }

  /**
   * Nobody leads here: renewals stop, every pod is demoted, and our lease is released ({@code
   * RELEASE}) or Redis left alone ({@code STAND_ASIDE}).
   *
   * @return the uids of the members demoted
   */
  private static Set<String> drop(Election.Action action, Observation seen, List<Effect> effects) {
    effects.add(new Effect.ForgetRenewal());
    Set<String> demoted = demoteAllBut(null, seen, effects);
    effects.add(
        new Effect.DropLease(
            action == Election.Action.RELEASE
                    && seen.lease().holder() instanceof Election.Holder.Ours o
                ? o.raw()
                : null));
    return demoted;
  }

  /**
   * Break before make: every pod but the new leader loses the leader label first.
   *
   * @return the uids of the members demoted, whose cached copies are now stale
   */
  private static Set<String> demoteAllBut(
      Candidate leader, Observation seen, List<Effect> effects) {
    Set<String> demoted = new HashSet<>();
    String promoted = seen.state().promotedPod();
    for (Pod pod : seen.pods().membership().members()) {
      if (!isPod(leader, pod)
          && BatonNames.LEADER.equals(Metadata.label(pod, seen.settings().roleLabel()))) {
        effects.add(new Effect.Demote(pod));
        demoted.add(pod.getMetadata().getUid());
        if (pod.getMetadata().getName().equals(promoted)) {
          promoted = null;
        }
      }
    }
    // A stray's ClearStray, earlier in the plan, took its role label off already: demoting it
    // would put a follower label back on a pod outside the group, which nothing would clear.
    for (Pod stray : seen.pods().membership().strays()) {
      if (stray.getMetadata().getName().equals(promoted)) {
        promoted = null;
      }
    }
    // The informer may not show our last promotion yet: that pod is demoted by name.
    if (promoted != null && (leader == null || !promoted.equals(leader.name()))) {
      effects.add(new Effect.DemoteByName(promoted, seen.pods().promotedCached()));
    }
    return demoted;
  }

  private static boolean isPod(Candidate c, Pod pod) {
    return c != null && c.uid().equals(pod.getMetadata().getUid());
  }
}
