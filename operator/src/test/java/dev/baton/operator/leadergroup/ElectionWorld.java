package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.client.BatonNames;
import dev.baton.client.HolderRecord;
import dev.baton.operator.pods.Candidate;
import dev.baton.operator.routing.RouteConvergence;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/** One group's pods, lease and remembered state, as an observation for the plan and actuator. */
final class ElectionWorld {

  static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");
  static final LeaderGroup GROUP = Sandbox.group("payments", "payments");
  static final GroupSettings SETTINGS = GroupSettings.of(GROUP);

  private ElectionWorld() {}

  /** A ready member, labeled leader or follower as the cache shows it. */
  static Pod pod(String name, boolean labeledLeader) {
    Pod p =
        Sandbox.readyPod(
            Sandbox.NS,
            name,
            Map.of(
                "app",
                "payments",
                SETTINGS.roleLabel(),
                labeledLeader ? BatonNames.LEADER : BatonNames.FOLLOWER));
    p.getMetadata().setUid("uid-" + name);
    p.getMetadata().setResourceVersion("1");
    return p;
  }

  static Pod notReady(Pod p) {
    p.getStatus().setConditions(List.of(Sandbox.readyCondition(false)));
    return p;
  }

  static Candidate candidate(Pod p) {
    return Candidate.of(p, SETTINGS.roleLabel(), node -> false);
  }

  static HolderRecord record(Pod p, long term) {
    return new HolderRecord(
        "default", Sandbox.NS, p.getMetadata().getName(), p.getMetadata().getUid(), term);
  }

  static Election.Holder ours(HolderRecord r) {
    return new Election.Holder.Ours(r, r.encode());
  }

  /** What the operator remembers: who it holds the lease for and whom it promoted last. */
  static ElectionState state(HolderRecord holder, String promoted, long reserved) {
    return new ElectionState(
        holder,
        holder == null ? 0 : holder.term(),
        reserved,
        holder == null ? null : NOW.toString(),
        promoted,
        0,
        null,
        RouteConvergence.IDLE);
  }

  static Observation seen(
      List<Pod> members, Election.Holder holder, boolean fresh, ElectionState state) {
    return seen(members, List.of(), holder, fresh, state);
  }

  /** The same, with pods that carry the group's marks but left it. */
  static Observation seen(
      List<Pod> members,
      List<Pod> strays,
      Election.Holder holder,
      boolean fresh,
      ElectionState state) {
    List<Candidate> candidates = members.stream().map(ElectionWorld::candidate).toList();
    return new Observation(
        "default",
        GROUP,
        SETTINGS,
        new PodView(
            new Membership(members, Map.of(), strays), candidates, candidates.size(), null, true),
        new LeaseView(holder, fresh, -1),
        state,
        new LeaderGroupStatus(),
        NOW);
  }

  static Election.Decision decide(Observation seen) {
    return Election.decide(
        seen.pods().candidates(), seen.lease().holder(), null, seen.namespace(), false);
  }
}
