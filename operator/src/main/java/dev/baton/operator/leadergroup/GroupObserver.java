package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.client.HolderRecord;
import dev.baton.operator.kube.BatonNames;
import dev.baton.operator.kube.Metadata;
import dev.baton.operator.lease.LeaseRenewer;
import dev.baton.operator.lease.LeaseStore;
import dev.baton.operator.lease.RedisConnections;
import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.lease.RedisSettings;
import io.fabric8.kubernetes.api.model.Pod;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.List;
import java.util.Optional;

/**
 * The observe step of a LeaderGroup reconcile: its pods as the informers show them, and its lease
 * as Redis (or the renewer, which renewed it a moment ago) shows it. Reads only.
 */
final class GroupObserver {

  /** The group's pods: who may run, who is ready, and a switchover asked for. */
  record PodView(
      Membership membership, List<Candidate> candidates, int ready, String switchoverTo) {}

  /**
   * The group's lease.
   *
   * @param store where it lives
   * @param holder what Redis holds, classified
   * @param renewed the lease this operator holds was renewed by this observation or just before
   * @param byRenewer it was the renewer that renewed it, moments ago: nothing was sent
   * @param term the term counter, or -1 when not read
   */
  record LeaseView(
      LeaseStore store, Election.Holder holder, boolean renewed, boolean byRenewer, long term) {}

  private final String clusterId;
  private final RedisSettings defaultRedis;
  private final RedisConnections connections;
  private final RedisSecrets secrets;
  private final LeaseRenewer<ResourceID> renewer;
  private final GroupEventSources sources;

  GroupObserver(
      String clusterId,
      RedisSettings defaultRedis,
      RedisConnections connections,
      RedisSecrets secrets,
      LeaseRenewer<ResourceID> renewer,
      GroupEventSources sources) {
    this.clusterId = clusterId;
    this.defaultRedis = defaultRedis;
    this.connections = connections;
    this.secrets = secrets;
    this.renewer = renewer;
    this.sources = sources;
  }

  PodView pods(LeaderGroup group, GroupSettings settings) {
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
        membership, candidates, ready, Metadata.request(group, BatonNames.SWITCHOVER_ANNOTATION));
  }

  /**
   * Renews the lease this operator holds, or reads it. While the renewer keeps it fresh and its
   * holder is still a ready member, nothing is sent: pod events then cost no Redis call.
   *
   * @throws RedisSecrets.SecretProblem when the group's Secret is missing or unusable
   * @throws dev.baton.operator.lease.RedisUnavailableException when Redis does not answer
   */
  LeaseView lease(LeaderGroup group, GroupSettings settings, ElectionState state, PodView pods) {
    LeaseStore store = store(group);
    if (state.holder != null) {
      Optional<Candidate> holderPod =
          pods.candidates().stream().filter(c -> c.uid().equals(state.holder.uid())).findFirst();
      if (holderPod.isPresent() && holderPod.get().eligible()) {
        String record = state.holder.encode();
        if (pods.switchoverTo() == null && renewer.fresh(ResourceID.fromResource(group), record)) {
          return new LeaseView(store, classify(record), true, true, -1);
        }
        LeaseStore.Observation seen =
            store.renew(settings.keys(), record, settings.ttl().toMillis());
        return new LeaseView(store, classify(seen.holder()), seen.renewed(), false, seen.term());
      }
    }
    LeaseStore.Observation seen = store.observe(settings.keys());
    return new LeaseView(store, classify(seen.holder()), false, false, seen.term());
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
