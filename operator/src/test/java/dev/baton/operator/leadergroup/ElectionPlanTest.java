package dev.baton.operator.leadergroup;

import static dev.baton.operator.leadergroup.ElectionWorld.candidate;
import static dev.baton.operator.leadergroup.ElectionWorld.decide;
import static dev.baton.operator.leadergroup.ElectionWorld.notReady;
import static dev.baton.operator.leadergroup.ElectionWorld.ours;
import static dev.baton.operator.leadergroup.ElectionWorld.pod;
import static dev.baton.operator.leadergroup.ElectionWorld.record;
import static dev.baton.operator.leadergroup.ElectionWorld.seen;
import static dev.baton.operator.leadergroup.ElectionWorld.state;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.HolderRecord;
import dev.baton.operator.leadergroup.ElectionPlan.Effect;
import dev.baton.operator.pods.Candidate;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The plan is a pure function, and its order is break-before-make. */
class ElectionPlanTest {

  @Test
  void aFailoverDemotesEveryoneBeforeTheAcquireAndLabelsTheLeaderAfter() {
    Pod a = notReady(pod("a", true));
    Pod b = pod("b", false);
    Pod c = pod("c", false);
    HolderRecord held = record(a, 7);
    var seen = seen(List.of(a, b, c), ours(held), false, state(held, "a", 1000));
    var decision = decide(seen);
    assertThat(decision.action()).isEqualTo(Election.Action.ELECT);

    List<Effect> plan = ElectionPlan.plan(decision, seen);

    assertThat(plan)
        .containsExactly(
            new Effect.Demote(a),
            new Effect.AcquireLease(
                held.encode(),
                HolderRecord.prefix("default", "shop", "b", "uid-b"),
                "2026-01-01T00:00:00Z"),
            new Effect.HoldRenewal(),
            new Effect.LabelLeader(b),
            new Effect.LabelFollower(c),
            new Effect.ReserveTermsAhead());
  }

  @Test
  void thePodPromotedLastIsDemotedByNameWhenTheCacheDoesNotShowItsLabelYet() {
    Pod b = pod("b", false);
    Pod c = pod("c", false);
    var seen = seen(List.of(b, c), new Election.Holder.Free(), false, state(null, "gone", 1000));

    List<Effect> plan = ElectionPlan.plan(decide(seen), seen);

    assertThat(plan.get(0)).isEqualTo(new Effect.DemoteByName("gone"));
    assertThat(plan.get(1)).isInstanceOf(Effect.AcquireLease.class);
  }

  @Test
  void aLeaderThatLeftTheGroupIsClearedFirstAndNotLabeledFollowerAfter() {
    Pod a = pod("a", true);
    Pod b = pod("b", false);
    Pod c = pod("c", false);
    HolderRecord held = record(a, 7);
    var seen = seen(List.of(b, c), List.of(a), ours(held), false, state(held, "a", 1000));
    var decision = decide(seen);
    assertThat(decision.action()).isEqualTo(Election.Action.ELECT);

    List<Effect> plan = ElectionPlan.plan(decision, seen);

    assertThat(plan.get(0)).isEqualTo(new Effect.ClearStray(a));
    assertThat(plan.get(1)).isInstanceOf(Effect.AcquireLease.class);
    assertThat(plan)
        .noneMatch(e -> e instanceof Effect.Demote || e instanceof Effect.DemoteByName)
        .contains(new Effect.LabelLeader(b), new Effect.LabelFollower(c));
  }

  @Test
  void aKeptLeaderWithAFreshLeaseCostsNoRenewal() {
    Pod a = pod("a", true);
    Pod b = pod("b", false);
    HolderRecord held = record(a, 3);
    var seen = seen(List.of(a, b), ours(held), true, state(held, "a", 1000));

    List<Effect> plan = ElectionPlan.plan(decide(seen), seen);

    assertThat(plan)
        .containsExactly(
            new Effect.KeepLease(held, held.encode(), false, ElectionWorld.NOW.toString()),
            new Effect.LabelLeader(a),
            new Effect.LabelFollower(b));
  }

  @Test
  void withoutCandidatesTheLeaseIsReleasedAfterEveryDemotion() {
    Pod a = notReady(pod("a", true));
    HolderRecord held = record(a, 3);
    var seen = seen(List.of(a), ours(held), false, state(held, "a", 1000));

    List<Effect> plan = ElectionPlan.plan(decide(seen), seen);

    assertThat(plan)
        .containsExactly(
            new Effect.ForgetRenewal(), new Effect.Demote(a), new Effect.DropLease(held.encode()));
  }

  @Test
  void pausedTheLeadersLeaseIsKeptWhileItsPodExistsAndRenewedOnlyWhenNotFresh() {
    Pod a = notReady(pod("a", true));
    Pod b = pod("b", false);
    HolderRecord held = record(a, 4);
    List<Candidate> both = List.of(candidate(a), candidate(b));

    assertThat(ElectionPlan.paused(held, both, false)).isEqualTo(ElectionPlan.PausedHold.RENEW);
    assertThat(ElectionPlan.paused(held, both, true)).isEqualTo(ElectionPlan.PausedHold.FRESH);
    assertThat(ElectionPlan.paused(held, List.of(candidate(b)), true))
        .as("its pod is gone")
        .isEqualTo(ElectionPlan.PausedHold.NONE);
    assertThat(ElectionPlan.paused(null, both, false)).isEqualTo(ElectionPlan.PausedHold.NONE);
  }

  @Test
  void inRandomWorldsNoLeaderIsLabeledBeforeEveryOtherPodWasDemotedAndTheLeaseTaken() {
    Random random = new Random(33);
    // Strays come from a stream of their own, so the other draws stay those of seed 33.
    Random strayRandom = new Random(34);
    for (int world = 0; world < 2000; world++) {
      List<Pod> pods = new ArrayList<>();
      int n = 1 + random.nextInt(4);
      for (int i = 0; i < n; i++) {
        Pod p = pod("p" + i, random.nextInt(3) == 0);
        pods.add(random.nextInt(4) == 0 ? notReady(p) : p);
      }
      Pod holderPod = pods.get(random.nextInt(n));
      HolderRecord held = record(holderPod, 5);
      Election.Holder holder = random.nextBoolean() ? ours(held) : new Election.Holder.Free();
      String promoted = random.nextBoolean() ? "p" + random.nextInt(n + 1) : null;
      // Some pods left the group but still carry its marks, the lease's holder or the pod
      // promoted last among them at times.
      List<Pod> members = new ArrayList<>();
      List<Pod> strays = new ArrayList<>();
      for (Pod p : pods) {
        (strayRandom.nextInt(5) == 0 ? strays : members).add(p);
      }
      Set<String> strayNames = new HashSet<>();
      strays.forEach(p -> strayNames.add(p.getMetadata().getName()));
      var seen =
          seen(
              members,
              strays,
              holder,
              random.nextBoolean(),
              state(random.nextBoolean() ? held : null, promoted, 1000));
      var decision = decide(seen);

      List<Effect> plan = ElectionPlan.plan(decision, seen);

      int lease =
          indexOf(plan, Effect.AcquireLease.class, Effect.KeepLease.class, Effect.DropLease.class);
      int leader = indexOf(plan, Effect.LabelLeader.class);
      for (int i = 0; i < plan.size(); i++) {
        Effect e = plan.get(i);
        assertThat(e instanceof Effect.ClearStray)
            .as("world %d: the strays first: %s", world, plan)
            .isEqualTo(i < strays.size());
        assertThat(touched(e)).as("world %d: %s", world, plan).isNotIn(strayNames);
        if (e instanceof Effect.Demote || e instanceof Effect.DemoteByName) {
          if (leader >= 0) {
            assertThat(i).as("world %d: %s", world, plan).isLessThan(leader);
          }
          if (decision.action() != Election.Action.KEEP) {
            assertThat(i).as("world %d: %s", world, plan).isLessThan(lease);
          }
        }
      }
      if (leader >= 0) {
        assertThat(lease).as("world %d: %s", world, plan).isBetween(0, leader - 1);
        assertThat(((Effect.LabelLeader) plan.get(leader)).pod().getMetadata().getUid())
            .isEqualTo(decision.leader().uid());
      }
    }
  }

  /** The pod an effect labels or demotes after the strays were cleared, or null. */
  private static String touched(Effect e) {
    if (e instanceof Effect.Demote d) {
      return d.pod().getMetadata().getName();
    } else if (e instanceof Effect.DemoteByName d) {
      return d.pod();
    } else if (e instanceof Effect.LabelLeader l) {
      return l.pod().getMetadata().getName();
    } else if (e instanceof Effect.LabelFollower f) {
      return f.pod().getMetadata().getName();
    }
    return null;
  }

  @SafeVarargs
  private static int indexOf(List<Effect> plan, Class<? extends Effect>... types) {
    for (int i = 0; i < plan.size(); i++) {
      for (Class<? extends Effect> t : types) {
        if (t.isInstance(plan.get(i))) {
          return i;
        }
      }
    }
    return -1;
  }
}
