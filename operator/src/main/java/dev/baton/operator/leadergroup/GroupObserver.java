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
import dev.baton.operator.metrics.FailoverTrace;
import dev.baton.operator.pods.Candidate;
import dev.baton.operator.tenancy.RoleLabelScope;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Clock;
import java.util.List;

/**
 * The observe step of a LeaderGroup reconcile: its pods as the informers show them, and its lease
 * as Redis (or the renewer, which renewed it a moment ago) shows it. Reads only.
 */
record GroupObserver(
    String clusterId,
    RedisConnections connections,
    RedisSecrets secrets,
    LeaseRenewer<ResourceID> renewer,
    GroupEventSources sources,
    RoleLabelScope roleLabels,
    Clock clock) {

  /**
   * @param promotedPod the pod this operator labeled leader last, or null: whether the informer
   *     still holds a pod of that name is part of the view
   */
  PodView pods(LeaderGroup group, GroupSettings settings, String promotedPod) {
    List<Pod> concerning = sources.podsConcerning(group);
    Membership membership =
        Membership.of(
            group,
            settings.roleLabel(),
            concerning,
            sources.groupsThatMaySelect(concerning),
            name -> sources.holdsGroup(group.getMetadata().getNamespace(), name),
            roleLabels);
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
   * Reads the lease. While the renewer keeps the one this operator holds fresh, nothing is sent:
   * the lease is where the renewer left it moments ago, and every write the act step makes to it is
   * a compare-and-set over that record (an acquire over it, a release of it), so a lease that
   * changed since is refused there, its renewal forgotten, and the next look reads Redis. Pod
   * events then cost no Redis call, and a failover none before its first label write. Renewing,
   * when it is due, is the act step's (a kept leader's lease is renewed there).
   *
   * @throws RedisSecrets.SecretProblem when the group's Secret is missing or unusable
   * @throws dev.baton.operator.lease.RedisUnavailableException when Redis does not answer
   */
  Observation observe(
      LeaderGroup group,
      GroupSettings settings,
      ElectionState state,
      PodView pods,
      LeaseStore store) {
    LeaseView lease = lease(group, settings, state, store);
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
      LeaderGroup group, GroupSettings settings, ElectionState state, LeaseStore store) {
    HolderRecord holder = state.holder();
    if (holder != null) {
      String record = holder.encode();
      if (renewer.fresh(ResourceID.fromResource(group), record)) {
        return new LeaseView(classify(record), true, -1);
      }
    }
    String ns = group.getMetadata().getNamespace();
    String name = group.getMetadata().getName();
    FailoverTrace.stamp(FailoverTrace.Step.LEASE_READ_SENT, ns, name, "");
    LeaseStore.Observation seen = store.observe(settings.keys());
    FailoverTrace.stamp(FailoverTrace.Step.LEASE_READ_ANSWERED, ns, name, "");
    return new LeaseView(classify(seen.holder()), false, seen.term());
  }

  /** Whether the renewer renewed {@code holder}'s lease moments ago (nothing to send). */
  boolean fresh(LeaderGroup group, HolderRecord holder) {
    return holder != null && renewer.fresh(ResourceID.fromResource(group), holder.encode());
  }

  /**
   * The group's Redis, where its lease lives: the act step is handed it beside the observation.
   *
   * @throws RedisSecrets.SecretProblem when the group's Secret is missing or unusable
   */
  LeaseStore store(LeaderGroup group) {
    var ref = group.getSpec().getRedis();
    String secret = ref == null ? null : ref.getSecretRef().getName();
    return connections.leaseStore(
        secrets.settingsOrDefault(group.getMetadata().getNamespace(), secret));
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
