package dev.baton.operator.redislock;

import static dev.baton.operator.redislock.LockWorlds.appHold;
import static dev.baton.operator.redislock.LockWorlds.grant;
import static dev.baton.operator.redislock.LockWorlds.grantOfAnotherCluster;
import static dev.baton.operator.redislock.LockWorlds.granting;
import static dev.baton.operator.redislock.LockWorlds.holds;
import static dev.baton.operator.redislock.LockWorlds.one;
import static dev.baton.operator.redislock.LockWorlds.pod;
import static dev.baton.operator.redislock.LockWorlds.read;
import static dev.baton.operator.redislock.LockWorlds.world;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The RedisLock decision as a table of the cases that matter; LockDecisionRulesTest checks it in
 * thousands of random worlds.
 */
class LockDecisionTest {

  @Test
  void aFreeLockIsGrantedToTheBestReadyPod() {
    LockStep s =
        LockDecision.decide(
            granting(
                one(null),
                pod("a", true, false, 0, 10),
                pod("b", true, false, 0, 20),
                pod("c", false, false, 5, 30)));
    assertThat(s)
        .isInstanceOfSatisfying(
            LockStep.Grant.class,
            g ->
                assertThat(g.pod().pod().name())
                    .as("the oldest ready, not the unready")
                    .isEqualTo("b"));
  }

  @Test
  void aHigherPriorityWinsOverAge() {
    LockStep s =
        LockDecision.decide(
            granting(one(null), pod("a", true, false, 0, 99), pod("b", true, false, 3, 1)));
    assertThat(((LockStep.Grant) s).pod().pod().name()).isEqualTo("b");
  }

  @Test
  void aFreeLockGoesBackToThePodThatStillCarriesTheLabel() {
    LockStep s =
        LockDecision.decide(
            granting(one(null), pod("a", true, false, 9, 99), pod("b", true, true)));
    assertThat(((LockStep.Grant) s).pod().pod().name()).as("sticky after data loss").isEqualTo("b");
  }

  @Test
  void noReadyPodMeansNoCandidates() {
    assertThat(LockDecision.decide(granting(one(null), pod("a", false, true))))
        .isInstanceOf(LockStep.NoCandidates.class);
  }

  @Test
  void aFreshGrantWithAReadyPodIsKept() {
    String v = grant("a");
    LockWorld w = world(true, one(v), List.of(pod("a", true, true)), Map.of(v, true), v, true);
    assertThat(LockDecision.decide(w))
        .isInstanceOfSatisfying(LockStep.Keep.class, k -> assertThat(k.value()).isEqualTo(v));
  }

  @Test
  void aGrantDueForRenewalOrNotYetAdoptedIsRenewedFirst() {
    String v = grant("a");
    LockWorld due = world(true, one(v), List.of(pod("a", true, true)), Map.of(v, true), v, false);
    assertThat(LockDecision.decide(due)).isInstanceOf(LockStep.Renew.class);
    LockWorld adopted =
        world(true, one(v), List.of(pod("a", true, true)), Map.of(v, true), null, false);
    assertThat(LockDecision.decide(adopted)).isInstanceOf(LockStep.Renew.class);
    LockWorld afterRenew = due.renewed(true, one(v), v);
    assertThat(LockDecision.decide(afterRenew)).isInstanceOf(LockStep.Keep.class);
  }

  @Test
  void aGrantWhosePodIsNotReadyMovesOnce() {
    String v = grant("a");
    LockWorld w =
        world(
            true,
            one(v),
            List.of(pod("a", false, true), pod("b", true, false)),
            Map.of(v, true),
            v,
            true);
    LockStep s = LockDecision.decide(w);
    assertThat(s)
        .isInstanceOfSatisfying(
            LockStep.Move.class, m -> assertThat(m.because()).isEqualTo("is not ready"));
    LockWorld after = w.withView(one(null), Map.of()).moved("shop/a", "is not ready");
    assertThat(LockDecision.decide(after))
        .isInstanceOfSatisfying(
            LockStep.Grant.class,
            g -> {
              assertThat(g.pod().pod().name()).isEqualTo("b");
              assertThat(g.movedFrom()).isEqualTo("shop/a");
            });
    LockWorld stillHeld = w.moved("shop/a", "is not ready");
    assertThat(LockDecision.decide(stillHeld))
        .as("no second move in one reconcile")
        .isInstanceOf(LockStep.Wait.class);
  }

  @Test
  void aKeptGrantCarriesItsPodItsTokenAndThePodsWhoseStaleLabelsComeOff() {
    String v = grant("a");
    LockWorld.LockCandidate a = pod("a", true, true);
    LockWorld.LockCandidate b = pod("b", true, false);
    Pod old = FakeLockSides.podNamed("old");
    LockState.Grant granted =
        new LockState.Grant(v, LockValues.parsePod(v).orElseThrow(), 3, 0, one(v));
    List<LockWorld.LockCandidate> pods = List.of(a, b);
    Map<String, Boolean> alive = Map.of(v, true);
    LockWorld w = read(true, false, one(v), pods, List.of(a.seen(), old), alive, v, granted, true);

    LockStep.Keep keep = (LockStep.Keep) LockDecision.decide(w);
    assertThat(keep.pod()).isEqualTo(a);
    assertThat(keep.adopted()).isFalse();
    assertThat(keep.token()).as("the token the grant was made with").isEqualTo(3);
    assertThat(keep.stale()).extracting(p -> p.getMetadata().getName()).containsExactly("b", "old");

    LockWorld restarted =
        read(true, false, one(v), pods, List.of(a.seen()), alive, null, null, false);
    assertThat(LockDecision.decide(restarted)).isInstanceOf(LockStep.Renew.class);
    LockStep.Keep adopted = (LockStep.Keep) LockDecision.decide(restarted.renewed(true, one(v), v));
    assertThat(adopted.adopted()).as("a grant the state did not name").isTrue();
    assertThat(adopted.token()).as("Redis's token for it").isEqualTo(7);
  }

  @Test
  void aGrantWhosePodIsGoneOrUnselectedSaysSo() {
    String v = grant("a");
    LockWorld gone = world(true, one(v), List.of(pod("b", true, false)), Map.of(v, false), v, true);
    assertThat(((LockStep.Move) LockDecision.decide(gone)).because()).isEqualTo("is gone");
    LockWorld unselected =
        world(true, one(v), List.of(pod("b", true, false)), Map.of(v, true), v, true);
    assertThat(((LockStep.Move) LockDecision.decide(unselected)).because())
        .isEqualTo("is no longer selected");
  }

  @Test
  void aHolderThatIsNotOurGrantIsLeftAlone() {
    String app = appHold("x");
    assertThat(LockDecision.decide(granting(one(app), pod("a", true, false))))
        .isInstanceOfSatisfying(
            LockStep.StandAside.class, a -> assertThat(a.holder()).isEqualTo(app));
    String east = grantOfAnotherCluster("a");
    assertThat(LockDecision.decide(granting(one(east), pod("a", true, false))))
        .isInstanceOf(LockStep.StandAside.class);
  }

  @Test
  void theLockOfADeadPodIsReapedButNotAnotherClustersGrant() {
    String app = appHold("x");
    String east = grantOfAnotherCluster("y");
    LockWorld w =
        world(
            false,
            new LockView(List.of(holds(app, 3), holds(east, 3)), 2),
            List.of(),
            Map.of(app, false, east, false),
            null,
            false);
    assertThat(LockDecision.decide(w))
        .isInstanceOfSatisfying(
            LockStep.Reap.class, r -> assertThat(r.values()).containsExactly(app));
    assertThat(LockDecision.decide(w.reapedDead()))
        .as("reaped once per reconcile")
        .isInstanceOf(LockStep.Report.class);
  }

  @Test
  void withAHolderSelectorOurOwnGrantIsMovedNotReaped() {
    String v = grant("a");
    LockWorld w = world(true, one(v), List.of(pod("b", true, false)), Map.of(v, false), v, true);
    assertThat(LockDecision.decide(w)).isInstanceOf(LockStep.Move.class);
  }

  @Test
  void withoutAHolderSelectorTheHolderIsReportedAndAnOldGrantTakenBack() {
    String app = appHold("x");
    assertThat(
            LockDecision.decide(world(false, one(app), List.of(), Map.of(app, true), null, false)))
        .isEqualTo(new LockStep.Report(app, false));
    assertThat(LockDecision.decide(world(false, one(null), List.of(), Map.of(), null, false)))
        .isEqualTo(new LockStep.Report(null, false));
    String old = grant("a");
    assertThat(
            LockDecision.decide(world(false, one(old), List.of(), Map.of(old, true), null, false)))
        .isEqualTo(new LockStep.Reclaim(old));
  }

  @Test
  void aForceReleaseComesFirstAndTakesEveryValue() {
    String a = grant("a");
    String b = appHold("b");
    LockView view = new LockView(List.of(holds(a, 3), holds(b, 3), holds(a, 3)), 2);
    List<LockWorld.LockCandidate> pods = List.of(pod("a", true, true));
    LockState.Grant held = LockWorlds.held(a, new LockView(List.of(holds(a, 3)), 1));
    LockWorld w = read(true, true, view, pods, List.of(), Map.of(a, true, b, false), a, held, true);
    assertThat(LockDecision.decide(w))
        .isInstanceOfSatisfying(
            LockStep.ForceRelease.class,
            f -> assertThat(f.values()).containsExactlyInAnyOrder(a, b));
  }

  @Test
  void aRedlockMinorityHoldingOurGrantIsWonBackOrMoved() {
    String v = grant("a");
    LockView minority = new LockView(List.of(holds(v, 5), holds(null, 5), holds(null, 5)), 2);
    LockWorld w = world(true, minority, List.of(pod("a", true, true)), Map.of(v, true), v, true);
    assertThat(LockDecision.decide(w))
        .as("renew wins the other instances back")
        .isInstanceOf(LockStep.Renew.class);
    assertThat(LockDecision.decide(w.renewed(false, minority, v)))
        .isInstanceOfSatisfying(
            LockStep.Move.class, m -> assertThat(m.because()).isEqualTo("lost its majority"));
  }
}
