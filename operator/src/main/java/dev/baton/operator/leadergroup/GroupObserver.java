package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.client.BatonNames;
import dev.baton.client.HolderRecord;
import dev.baton.operator.kube.Metadata;
import dev.baton.operator.lease.LeaseRenewer;
import dev.baton.operator.lease.LeaseStore;
import dev.baton.operator.lease.RedisConnections;
import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.lease.RedisSettings;
import dev.baton.operator.pods.Candidate;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Clock;
import java.time.Instant;
import java.util.List;

/**
 * The observe step of a LeaderGroup reconcile: its pods as the informers show them, and its lease
 * as Redis (or the renewer, which renewed it a moment ago) shows it. Reads only.
 */
final class GroupObserver {

  /** The group's pods: who may run, who is ready, and a switchover asked for. */
  record PodView(
      Membership membership,
      List<Candidate> candidates,
      int ready,
      String switchoverTo,
      boolean promotedCached) {}

  /**
   * The group's lease.
   *
   * @param store where it lives
   * @param holder what Redis holds, classified
   * @param fresh the renewer renewed the lease this operator holds moments ago: nothing was sent,
   *     and keeping it needs no call either
   * @param term the term counter, or -1 when not read
   */
  record LeaseView(LeaseStore store, Election.Holder holder, boolean fresh, long term) {}

  /**
   * Everything one reconcile decides and plans from, read once: nothing in it changes during the
   * reconcile, and nothing was written to make it.
   *
   * @param state what the operator remembered of the election when the reconcile began, with the
   *     term counter just read
   * @param old the status as the cache shows it
   * @param now when the observation was made
   */
  record Observation(
      String clusterId,
      LeaderGroup group,
      GroupSettings settings,
      PodView pods,
      LeaseView lease,
      ElectionState state,
      LeaderGroupStatus old,
      Instant now) {

    String namespace() {
      return group.getMetadata().getNamespace();
    }

    /** The pod that led before this reconcile: Redis's holder, else the one promoted last. */
    String previousLeader() {
      return lease.holder() instanceof Election.Holder.Ours o
          ? o.record().pod()
          : state.promotedPod();
    }

    /**
     * Whether this pod led before the reconcile: by uid when known, since a pod recreated under the
     * same name (a StatefulSet's) is another pod.
     */
    boolean ledBefore(Candidate leader) {
      String previous = previousLeader();
      if (leader == null || previous == null) {
        return false;
      }
      String uid =
          lease.holder() instanceof Election.Holder.Ours o
              ? o.record().uid()
              : state.holder() != null && state.holder().pod().equals(previous)
                  ? state.holder().uid()
                  : null;
      return uid != null ? leader.uid().equals(uid) : leader.name().equals(previous);
    }
  }

  private final String clusterId;
  private final RedisSettings defaultRedis;
  private final RedisConnections connections;
  private final RedisSecrets secrets;
  private final LeaseRenewer<ResourceID> renewer;
  private final GroupEventSources sources;
  private final Clock clock;

  GroupObserver(
      String clusterId,
      RedisSettings defaultRedis,
      RedisConnections connections,
      RedisSecrets secrets,
      LeaseRenewer<ResourceID> renewer,
      GroupEventSources sources,
      Clock clock) {
    this.clusterId = clusterId;
    this.defaultRedis = defaultRedis;
    this.connections = connections;
    this.secrets = secrets;
    this.renewer = renewer;
    this.sources = sources;
    this.clock = clock;
  }

  /**
   * @param promotedPod the pod this operator labeled leader last, or null: whether the informer
   *     still holds a pod of that name is part of the view
   */
  PodView pods(LeaderGroup group, GroupSettings settings, String promotedPod) {
    List<Pod> concerning = sources.podsConcerning(group);
    Membership membership =
        Membership.of(
            group, settings.roleLabel(), concerning, sources.groupsThatMaySelect(concerning));
    List<Candidate> candidates =
        membership.members().stream()
            .map(p -> Candidate.of(p, settings.roleLabel(), sources::nodeLost))
            .toList();
    int ready = (int) candidates.stream().filter(Candidate::eligible).count();
    return new PodView(
        membership,
        candidates,
        ready,
        Metadata.request(group, BatonNames.SWITCHOVER_ANNOTATION),
        promotedPod != null && sources.holdsPod(group.getMetadata().getNamespace(), promotedPod));
  }

  /**
   * Reads the lease. While the renewer keeps the one this operator holds fresh and its holder is
   * still a ready member, nothing is sent: pod events then cost no Redis call. Renewing, when it is
   * due, is the act step's (a kept leader's lease is renewed there).
   *
   * @throws RedisSecrets.SecretProblem when the group's Secret is missing or unusable
   * @throws dev.baton.operator.lease.RedisUnavailableException when Redis does not answer
   */
  Observation observe(
      LeaderGroup group, GroupSettings settings, ElectionState state, PodView pods) {
    LeaseView lease = lease(group, settings, state, pods);
    return new Observation(
        clusterId,
        group,
        settings,
        pods,
        lease,
        state.termSeen(lease.term()),
        group.getStatus() == null ? new LeaderGroupStatus() : group.getStatus(),
        clock.instant());
  }

  private LeaseView lease(
      LeaderGroup group, GroupSettings settings, ElectionState state, PodView pods) {
    LeaseStore store = store(group);
    HolderRecord holder = state.holder();
    if (holder != null && pods.switchoverTo() == null) {
      String record = holder.encode();
      boolean holderEligible =
          pods.candidates().stream().anyMatch(c -> c.uid().equals(holder.uid()) && c.eligible());
      if (holderEligible && renewer.fresh(ResourceID.fromResource(group), record)) {
        return new LeaseView(store, classify(record), true, -1);
      }
    }
    LeaseStore.Observation seen = store.observe(settings.keys());
    return new LeaseView(store, classify(seen.holder()), false, seen.term());
  }

  /** Whether the renewer renewed {@code holder}'s lease moments ago (nothing to send). */
  boolean fresh(LeaderGroup group, HolderRecord holder) {
    return holder != null && renewer.fresh(ResourceID.fromResource(group), holder.encode());
  }

  LeaseStore store(LeaderGroup group) {
    var ref = group.getSpec().getRedis();
    RedisSettings settings =
        ref == null
            ? defaultRedis
            : secrets.settings(group.getMetadata().getNamespace(), ref.getSecretRef().getName());
    return connections.leaseStore(settings);
  }

  private Election.Holder classify(String raw) {
    if (raw == null) {
      return new Election.Holder.Free();
    }
    return HolderRecord.parse(raw)
        .filter(r -> r.clusterId().equals(clusterId))
        .<Election.Holder>map(r -> new Election.Holder.Ours(r, raw))
        .orElse(new Election.Holder.Foreign(raw));
  }

  /** Pods to strip of this group's marks: it labeled them, and it is going away. */
  List<Pod> labeledBy(LeaderGroup group) {
    return sources.labeledBy(group);
  }
}
