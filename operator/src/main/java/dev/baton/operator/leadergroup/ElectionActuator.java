package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.client.HolderRecord;
import dev.baton.operator.kube.BatonNames;
import dev.baton.operator.kube.Metadata;
import dev.baton.operator.lease.LeaseRenewer;
import dev.baton.operator.lease.LeaseStore;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The act step of a LeaderGroup reconcile: carries out the election's decision in Redis and on the
 * pods, break-before-make (docs/design.md, "One leader label"): every pod but the new leader loses
 * the leader label before the lease changes hands, and the new leader is labeled only after.
 */
final class ElectionActuator {

  /**
   * What the act step did.
   *
   * @param leader the pod that leads now, or null
   * @param previousLeader the pod that led before this step, or null
   * @param previousLeaderUid its uid when known, or null
   * @param retrySoon the lease changed under us between read and write: decide again at once
   */
  record Outcome(
      Candidate leader, String previousLeader, String previousLeaderUid, boolean retrySoon) {

    /**
     * Whether the leader is the pod that led before: by uid when known, since a pod recreated under
     * the same name (a StatefulSet's) is another pod.
     */
    boolean sameLeader() {
      if (leader == null || previousLeader == null) {
        return false;
      }
      return previousLeaderUid != null
          ? leader.uid().equals(previousLeaderUid)
          : leader.name().equals(previousLeader);
    }
  }

  private final KubernetesClient client;
  private final String clusterId;
  private final PodLabeler labeler;
  private final LeaseRenewer<ResourceID> renewer;
  private final TermReservations reservations;
  private final PodCache podCache;
  private final Clock clock;

  /** Whether the pod informer holds a pod of this name. */
  interface PodCache {
    boolean holds(String namespace, String name);
  }

  ElectionActuator(
      KubernetesClient client,
      String clusterId,
      PodLabeler labeler,
      LeaseRenewer<ResourceID> renewer,
      TermReservations reservations,
      PodCache podCache,
      Clock clock) {
    this.client = client;
    this.clusterId = clusterId;
    this.labeler = labeler;
    this.renewer = renewer;
    this.reservations = reservations;
    this.podCache = podCache;
    this.clock = clock;
  }

  /**
   * Paused: leadership is frozen (nobody elected, no label touched), but the current leader's lease
   * is kept renewed while its pod exists, ready or not, so that applications watching the lease
   * keep their leader. Its pod gone, or the lease lost to someone else, nothing is renewed.
   *
   * @return the leader whose lease is kept, or null when there is none
   * @throws dev.baton.operator.lease.RedisUnavailableException when Redis does not answer
   */
  String holdWhilePaused(
      LeaderGroup group,
      GroupSettings settings,
      ElectionState state,
      List<Candidate> candidates,
      LeaseStore store) {
    ResourceID id = ResourceID.fromResource(group);
    HolderRecord holder = state.holder;
    if (holder == null || candidates.stream().noneMatch(c -> c.uid().equals(holder.uid()))) {
      renewer.forget(id);
      return null;
    }
    String record = holder.encode();
    if (renewer.fresh(id, record)) {
      return holder.pod();
    }
    if (!store.renew(settings.keys(), record, settings.ttl().toMillis()).renewed()) {
      renewer.forget(id);
      return null;
    }
    renewer.hold(id, store, settings.keys(), record, settings.ttl(), settings.renewInterval());
    return holder.pod();
  }

  /** Strips the marks of this group from pods that left it. */
  void clearStrays(Membership membership, GroupSettings settings) {
    for (Pod stray : membership.strays()) {
      labeler.clear(stray, settings.roleLabel());
    }
  }

  /**
   * @throws dev.baton.operator.lease.RedisUnavailableException when Redis stops answering midway;
   *     whatever was done so far leaves at most one pod labeled leader
   */
  Outcome carryOut(
      LeaderGroup group,
      GroupSettings settings,
      ElectionState state,
      GroupObserver.PodView pods,
      GroupObserver.LeaseView lease,
      Election.Decision decision,
      LeaderGroupStatus old) {
    ResourceID id = ResourceID.fromResource(group);
    String ns = group.getMetadata().getNamespace();
    String name = group.getMetadata().getName();
    List<Pod> members = pods.membership().members();
    Election.Holder holder = lease.holder();
    String previousLeader =
        holder instanceof Election.Holder.Ours o ? o.record().pod() : state.promotedPod;
    String previousLeaderUid =
        holder instanceof Election.Holder.Ours o
            ? o.record().uid()
            : state.holder != null && state.holder.pod().equals(previousLeader)
                ? state.holder.uid()
                : null;
    Candidate leader = decision.leader();
    LeaseStore store = lease.store();
    long ttl = settings.ttl().toMillis();
    Set<String> demoted = Set.of();
    switch (decision.action()) {
      case KEEP -> {
        Election.Holder.Ours ours = (Election.Holder.Ours) holder;
        if (!lease.fresh() && !store.renew(settings.keys(), ours.raw(), ttl).renewed()) {
          return new Outcome(leader, previousLeader, previousLeaderUid, true);
        }
        if (state.holder == null || !state.holder.uid().equals(ours.record().uid())) {
          state.leaderSince =
              Objects.equals(old.getLeaderUID(), ours.record().uid())
                  ? old.getLeaderSince()
                  : now();
        }
        state.adopt(ours.record());
        if (!lease.fresh()) {
          renewer.hold(
              id, store, settings.keys(), ours.raw(), settings.ttl(), settings.renewInterval());
        }
      }
      case ELECT -> {
        demoted = demoteAllBut(leader, members, state, settings, name, ns, demoted);
        String expected = holder instanceof Election.Holder.Ours o ? o.raw() : "";
        String prefix = HolderRecord.prefix(clusterId, ns, leader.name(), leader.uid());
        LeaseStore.Acquisition got =
            store.acquire(
                settings.keys(), expected, prefix, ttl, TermReservations.known(group, state));
        if (got.unreserved()) {
          reservations.reserve(
              group, state, store, settings.keys(), members, got.unreservedCounter());
          got =
              store.acquire(
                  settings.keys(), expected, prefix, ttl, TermReservations.known(group, state));
        }
        if (!got.acquired()) {
          return new Outcome(leader, previousLeader, previousLeaderUid, true);
        }
        HolderRecord record = HolderRecord.parse(got.holder()).orElseThrow();
        boolean samePod =
            state.holder != null && state.holder.uid().equals(leader.uid())
                || leader.labeledLeader();
        if (!samePod || state.leaderSince == null) {
          state.leaderSince = now();
        }
        state.adopt(record);
        renewer.hold(
            id, store, settings.keys(), got.holder(), settings.ttl(), settings.renewInterval());
      }
      case RELEASE, STAND_ASIDE -> {
        renewer.forget(id);
        demoted = demoteAllBut(null, members, state, settings, name, ns, demoted);
        if (decision.action() == Election.Action.RELEASE
            && holder instanceof Election.Holder.Ours o) {
          store.release(settings.keys(), o.raw());
        }
        state.forgetHolder();
      }
    }
    labelMembers(leader, members, state, settings, name, ns, demoted);
    if (decision.switchover() != Election.SwitchoverOutcome.NONE) {
      removeSwitchoverRequest(group);
    }
    if (decision.action() == Election.Action.ELECT
        && state.reserved - state.maxTerm < TermReservations.BLOCK / 2) {
      // Ahead of need, once the new leader is labeled: the next failover finds terms reserved
      // and waits for no status write.
      reservations.reserve(group, state, store, settings.keys(), members, state.maxTerm);
    }
    return new Outcome(leader, previousLeader, previousLeaderUid, false);
  }

  /**
   * Break before make: every pod but the new leader loses the leader label first.
   *
   * @return the uids of the pods demoted here, whose cached copies are now stale
   */
  private Set<String> demoteAllBut(
      Candidate leader,
      List<Pod> members,
      ElectionState state,
      GroupSettings settings,
      String group,
      String ns,
      Set<String> alreadyDemoted) {
    PodLabeler.Role follower = role(settings, group, false, 0, null);
    Set<String> demoted = new HashSet<>(alreadyDemoted);
    for (Pod pod : members) {
      boolean isLeader = leader != null && leader.uid().equals(pod.getMetadata().getUid());
      // A pod demoted earlier in this step still shows the leader label in its cached copy.
      if (!isLeader
          && !demoted.contains(pod.getMetadata().getUid())
          && BatonNames.LEADER.equals(Metadata.label(pod, settings.roleLabel()))) {
        labeler.apply(pod, follower);
        demoted.add(pod.getMetadata().getUid());
        if (pod.getMetadata().getName().equals(state.promotedPod)) {
          state.promotedPod = null;
        }
      }
    }
    // The informer may not show our last promotion yet: demote that pod whatever the cache says
    // about its labels. A pod the cache no longer holds at all was deleted (it was there when we
    // promoted it) and carries no label to remove: a deleted leader costs no write here.
    if (state.promotedPod != null && (leader == null || !state.promotedPod.equals(leader.name()))) {
      if (podCache.holds(ns, state.promotedPod)) {
        labeler.demote(ns, state.promotedPod, follower);
      }
      state.promotedPod = null;
    }
    return demoted;
  }

  private void labelMembers(
      Candidate leader,
      List<Pod> members,
      ElectionState state,
      GroupSettings settings,
      String group,
      String ns,
      Set<String> demoted) {
    Set<String> done = demoteAllBut(leader, members, state, settings, group, ns, demoted);
    if (leader != null) {
      Pod pod =
          members.stream()
              .filter(p -> leader.uid().equals(p.getMetadata().getUid()))
              .findFirst()
              .orElseThrow();
      labeler.apply(pod, role(settings, group, true, state.holder.term(), state.leaderSince));
      state.promotedPod = leader.name();
    }
    PodLabeler.Role follower = role(settings, group, false, 0, null);
    for (Pod pod : members) {
      boolean isLeader = leader != null && leader.uid().equals(pod.getMetadata().getUid());
      // A pod demoted in this step is a follower already; its cached copy predates that write.
      if (!isLeader && !done.contains(pod.getMetadata().getUid())) {
        labeler.apply(pod, follower);
      }
    }
  }

  private static PodLabeler.Role role(
      GroupSettings settings, String group, boolean leader, long term, String since) {
    return new PodLabeler.Role(
        settings.roleLabel(),
        group,
        leader,
        term,
        since,
        settings.protectLeader(),
        settings.failoverDelayAnnotation());
  }

  /** The switchover annotation goes once it was carried out or refused. */
  private void removeSwitchoverRequest(LeaderGroup group) {
    client
        .resources(LeaderGroup.class)
        .inNamespace(group.getMetadata().getNamespace())
        .withName(group.getMetadata().getName())
        .edit(
            g -> {
              if (g.getMetadata().getAnnotations() != null) {
                g.getMetadata().getAnnotations().remove(BatonNames.SWITCHOVER_ANNOTATION);
              }
              return g;
            });
  }

  private String now() {
    return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
