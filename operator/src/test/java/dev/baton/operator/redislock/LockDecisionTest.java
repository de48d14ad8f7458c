package dev.baton.operator.redislock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.InstanceView;
import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import dev.baton.operator.pods.Candidate;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The RedisLock decision, as a table of the cases that matter and as thousands of random worlds
 * (fixed seed) checked against the rules it must never break.
 */
class LockDecisionTest {

  private static final String NS = "shop";
  private static final String CLUSTER = "default";

  // ---- builders ----

  private static LockWorld.LockCandidate pod(String name, boolean ready, boolean labeled) {
    return pod(name, ready, labeled, 0, 0);
  }

  private static LockWorld.LockCandidate pod(
      String name, boolean ready, boolean labeled, int priority, long ageSeconds) {
    Candidate c =
        new Candidate(
            name,
            uid(name),
            ready,
            ready ? Candidate.Ineligibility.NONE : Candidate.Ineligibility.NOT_READY,
            Instant.parse("2026-01-01T00:00:00Z").minusSeconds(ageSeconds),
            priority,
            false);
    return new LockWorld.LockCandidate(c, NS, labeled, FakeLockSides.podNamed(name));
  }

  private static String uid(String pod) {
    return pod + "-uid";
  }

  /** A grant of this operator's cluster for a pod. */
  private static String grant(String pod) {
    return LockLabels.grantValue(CLUSTER, NS, pod, uid(pod));
  }

  private static String grantOfAnotherCluster(String pod) {
    return LockLabels.grantValue("east", NS, pod, uid(pod));
  }

  private static String appHold(String pod) {
    return LockValues.pod(NS, pod, uid(pod), LockValues.random());
  }

  private static InstanceView holds(String value, long counter) {
    return new InstanceView(
        "redis", true, false, value, value == null ? -2 : 20_000, counter, 1_000, false, null);
  }

  private static LockView one(String value) {
    return new LockView(List.of(holds(value, 7)), 1);
  }

  private static LockWorld world(
      boolean grants,
      LockView view,
      List<LockWorld.LockCandidate> pods,
      Map<String, Boolean> alive,
      String granted,
      boolean recent) {
    return new LockWorld(
        CLUSTER,
        grants,
        false,
        view,
        pods,
        List.of(),
        alive,
        granted,
        LockDecisionWorlds.held(CLUSTER, granted, view),
        recent,
        null,
        false,
        null,
        null);
  }

  private static LockWorld granting(LockView view, LockWorld.LockCandidate... pods) {
    Map<String, Boolean> alive = new HashMap<>();
    view.values().forEach(v -> alive.put(v, true));
    return world(true, view, List.of(pods), alive, null, false);
  }

  // ---- the table ----

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
    LockWorld w =
        new LockWorld(
            CLUSTER,
            true,
            true,
            new LockView(List.of(holds(a, 3), holds(b, 3), holds(a, 3)), 2),
            List.of(pod("a", true, true)),
            List.of(),
            Map.of(a, true, b, false),
            a,
            LockDecisionWorlds.held(CLUSTER, a, new LockView(List.of(holds(a, 3)), 1)),
            true,
            null,
            false,
            null,
            null);
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

  // ---- random worlds ----

  @Test
  void randomWorldsNeverBreakTheRules() {
    Random random = new Random(20261130L);
    for (int i = 0; i < 20_000; i++) {
      LockWorld w = randomWorld(random);
      LockStep step = LockDecision.decide(w);
      assertThat(LockDecision.decide(w)).as("deterministic for %s", w).isEqualTo(step);
      checkRules(w, step);
      assertThat(reachesALastStep(w))
          .as("ends within %d steps: %s", LockDecision.MAX_STEPS, w)
          .isTrue();
      List<LockStep> plan = LockDecision.plan(w, false);
      assertThat(LockDecision.plan(w, false)).as("deterministic for %s", w).isEqualTo(plan);
      assertThat(plan.get(0))
          .as("the plan starts with the decision: %s", w)
          .isEqualTo(step instanceof LockStep.Renew r ? plan.get(0) : step);
      assertThat(plan.get(plan.size() - 1).last()).as("the plan ends: %s", w).isTrue();
      assertThat(plan)
          .as("a plan never waits for want of steps: %s", w)
          .hasSizeLessThanOrEqualTo(LockDecision.MAX_STEPS);
    }
  }

  private static void checkRules(LockWorld w, LockStep step) {
    String context = w + " -> " + step;
    if (w.forceRelease()) {
      assertThat(step).as(context).isInstanceOf(LockStep.ForceRelease.class);
      return;
    }
    if (step instanceof LockStep.Grant g) {
      assertThat(w.grants()).as(context).isTrue();
      assertThat(g.pod().pod().eligible()).as("granted to an ineligible pod: " + context).isTrue();
      assertThat(w.view().holder()).as("granted while held: " + context).isNull();
    }
    if (step instanceof LockStep.Keep k) {
      assertThat(k.pod().pod().eligible()).as(context).isTrue();
      assertThat(k.value()).as(context).isEqualTo(w.view().holder());
      assertThat(LockValues.parsePod(k.value()).orElseThrow().uid())
          .as(context)
          .isEqualTo(k.pod().pod().uid());
    }
    if (step instanceof LockStep.Reap r) {
      for (String v : r.values()) {
        assertThat(w.podAlive().get(v)).as("reaped a live pod's lock: " + context).isFalse();
        assertThat(LockLabels.isGrant(v) && LockLabels.grantedHere(v, CLUSTER).isEmpty())
            .as("reaped another cluster's grant: " + context)
            .isFalse();
      }
    }
    if (step instanceof LockStep.Move) {
      assertThat(w.mayMove()).as("moved twice in a reconcile: " + context).isTrue();
    }
    if (!w.grants()) {
      assertThat(step)
          .as(context)
          .isNotInstanceOfAny(
              LockStep.Grant.class, LockStep.Keep.class, LockStep.Move.class, LockStep.Renew.class);
    }
  }

  /**
   * Runs the decisions against a Redis that does what each step asks (releases delete, a renew of a
   * value held somewhere succeeds, nothing else changes) and checks a last step comes in time.
   */
  private static boolean reachesALastStep(LockWorld w) {
    for (int i = 0; i < LockDecision.MAX_STEPS; i++) {
      LockStep step = LockDecision.decide(w);
      if (step.last()) {
        return true;
      }
      if (step instanceof LockStep.ForceRelease f) {
        w = w.withView(without(w.view(), f.values()), w.podAlive()).forceReleased();
      } else if (step instanceof LockStep.Reap r) {
        w = w.withView(without(w.view(), r.values()), w.podAlive()).reapedDead();
      } else if (step instanceof LockStep.Reclaim c) {
        w = w.withView(without(w.view(), List.of(c.value())), w.podAlive());
      } else if (step instanceof LockStep.Renew r) {
        w = w.renewed(w.view().count(r.value()) >= w.view().quorum(), w.view(), r.value());
      } else if (step instanceof LockStep.Move m) {
        w =
            w.withView(without(w.view(), List.of(m.value())), w.podAlive())
                .moved(m.from().name(), m.because());
      }
    }
    return false;
  }

  private static LockView without(LockView view, List<String> values) {
    List<InstanceView> out = new ArrayList<>();
    for (InstanceView i : view.instances()) {
      out.add(i.value() != null && values.contains(i.value()) ? holds(null, i.counter() + 1) : i);
    }
    return new LockView(out, view.quorum());
  }

  private static LockWorld randomWorld(Random random) {
    int podCount = random.nextInt(4);
    List<LockWorld.LockCandidate> pods = new ArrayList<>();
    for (int p = 0; p < podCount; p++) {
      pods.add(
          pod(
              "p" + p,
              random.nextBoolean(),
              random.nextInt(4) == 0,
              random.nextInt(3),
              random.nextInt(100)));
    }
    List<String> values = new ArrayList<>();
    values.add(null);
    for (int p = 0; p < 4; p++) {
      values.add(grant("p" + p));
      values.add(appHold("p" + p));
    }
    values.add(grantOfAnotherCluster("p0"));
    values.add("ci-runner:" + LockValues.random());
    int instances = random.nextBoolean() ? 1 : 3;
    List<InstanceView> views = new ArrayList<>();
    for (int i = 0; i < instances; i++) {
      views.add(holds(values.get(random.nextInt(values.size())), random.nextInt(10)));
    }
    LockView view = new LockView(views, instances / 2 + 1);
    Map<String, Boolean> alive = new HashMap<>();
    for (String v : view.values()) {
      if (LockValues.parsePod(v).isPresent()) {
        alive.put(v, random.nextBoolean());
      }
    }
    String granted = random.nextBoolean() ? view.mostHeld() : null;
    return new LockWorld(
        CLUSTER,
        random.nextInt(3) > 0,
        random.nextInt(10) == 0,
        view,
        pods,
        List.of(),
        alive,
        granted,
        LockDecisionWorlds.held(CLUSTER, granted, view),
        random.nextBoolean(),
        null,
        random.nextInt(4) == 0,
        null,
        null);
  }
}
