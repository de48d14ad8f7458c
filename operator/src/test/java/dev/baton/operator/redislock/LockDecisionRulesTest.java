package dev.baton.operator.redislock;

import static dev.baton.operator.redislock.LockWorlds.CLUSTER;
import static dev.baton.operator.redislock.LockWorlds.appHold;
import static dev.baton.operator.redislock.LockWorlds.grant;
import static dev.baton.operator.redislock.LockWorlds.grantOfAnotherCluster;
import static dev.baton.operator.redislock.LockWorlds.holds;
import static dev.baton.operator.redislock.LockWorlds.pod;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.InstanceView;
import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The RedisLock decision in thousands of random worlds (fixed seed), checked against the rules it
 * must never break.
 */
class LockDecisionRulesTest {

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
        LockWorlds.held(granted, view),
        random.nextBoolean(),
        null,
        random.nextInt(4) == 0,
        null,
        null);
  }
}
