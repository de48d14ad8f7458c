package dev.baton.operator.redislock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.client.LockValues;
import dev.baton.operator.fencing.Reservations;
import dev.baton.operator.testing.BatonCluster;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A whole plan, made once from one world and carried out without deciding again: its order is
 * labels before locks, in a table of cases and in thousands of random worlds (fixed seed) carried
 * out against Redis and the API server held in memory.
 */
class LockPlanTest {

  private static final String CLUSTER = "default";
  private static final String NS = "shop";

  private final RedisLock lock = BatonCluster.grantedLock("migration", "30s", "worker");
  private final LockSettings settings = LockSettings.of(lock);

  private static LockWorld.LockCandidate candidate(String name, boolean ready) {
    return LockWorlds.pod(name, ready, false);
  }

  private static String grantTo(String pod) {
    return LockWorlds.grant(pod);
  }

  private static LockWorld world(
      FakeLockSides fakes,
      boolean grants,
      boolean forceRelease,
      List<LockWorld.LockCandidate> pods,
      Map<String, Boolean> alive,
      LockState state,
      boolean recent) {
    return LockWorlds.read(
        grants,
        forceRelease,
        fakes.redis.view(),
        pods,
        fakes.api.labeledPods(),
        alive,
        state.grantedValue(),
        state.grant(),
        recent);
  }

  /** The state after this operator granted {@code value} with Redis's counter as its token. */
  private LockState grantedTo(FakeLockSides fakes, String value) {
    return LockState.EMPTY.record(
        List.of(
            new LockOutcome.Granted(
                value,
                LockValues.parsePod(value).orElseThrow().name(),
                fakes.redis.counter,
                null,
                null,
                fakes.redis.view(),
                settings.interval())),
        System.nanoTime(),
        "2026-12-04T00:00:00Z");
  }

  private LockActuator.Outcome carry(FakeLockSides fakes, LockState state, LockWorld w) {
    return new LockActuator(CLUSTER, fakes.api, Reservations.tokens(null), System::nanoTime)
        .carryOut(
            new LockActuator.Scope(lock, settings, fakes.redis, state),
            w,
            LockDecision.plan(w, false));
  }

  @Test
  void aGrantWhosePodIsNotReadyMovesAndIsGrantedAgainInOnePlanLabelsFirst() {
    FakeLockSides fakes = new FakeLockSides();
    fakes.api.pod("a");
    fakes.api.pod("b");
    String held = grantTo("a");
    fakes.redis.value = held;
    fakes.redis.counter = 7;
    fakes.api.labeled.put("a", 7L);
    LockState state = grantedTo(fakes, held);
    LockWorld w =
        world(
            fakes,
            true,
            false,
            List.of(candidate("a", false), candidate("b", true)),
            Map.of(held, true),
            state,
            true);

    List<LockStep> plan = LockDecision.plan(w, false);
    assertThat(plan).hasSize(2);
    assertThat(plan.get(0)).isInstanceOf(LockStep.Move.class);
    assertThat(plan.get(1))
        .isInstanceOfSatisfying(
            LockStep.Grant.class, g -> assertThat(g.movedFrom()).isEqualTo("shop/a"));

    LockActuator.Outcome out = carry(fakes, state, w);

    assertThat(out.failure()).isNull();
    assertThat(out.last()).isInstanceOf(LockOutcome.Granted.class);
    assertThat(fakes.journal)
        .containsExactly(
            "unlabel a",
            "release " + held,
            "acquire " + fakes.redis.value,
            "unlabel all but b-uid",
            "label b 8");
    assertThat(fakes.breaks).isEmpty();
  }

  @Test
  void aRenewalRefusedFollowsTheBranchPlannedForIt() {
    FakeLockSides fakes = new FakeLockSides();
    fakes.api.pod("a");
    String ours = grantTo("a");
    // Redis shows our grant when read; by the renewal an application has taken the lock.
    fakes.redis.value = ours;
    LockState state = grantedTo(fakes, ours);
    LockWorld w =
        world(fakes, true, false, List.of(candidate("a", true)), Map.of(ours, true), state, false);
    List<LockStep> plan = LockDecision.plan(w, false);
    assertThat(plan.get(0))
        .isInstanceOfSatisfying(LockStep.Renew.class, r -> assertThat(r.ifRefused()).isNotEmpty());
    fakes.redis.value = "app-holder";

    LockActuator.Outcome out = carry(fakes, state, w);

    assertThat(out.done().get(0))
        .isInstanceOfSatisfying(
            LockOutcome.Renewed.class, r -> assertThat(r.result().ok()).isFalse());
    assertThat(out.last()).as("the refused branch, planned from the read").isNotNull();
    assertThat(fakes.api.labeled).isEmpty();
    assertThat(fakes.breaks).isEmpty();
  }

  @Test
  void aPlanThatShowsTooFewTokensReservesFirst() {
    FakeLockSides fakes = new FakeLockSides();
    LockWorld w = world(fakes, false, false, List.of(), Map.of(), LockState.EMPTY, false);

    assertThat(LockDecision.plan(w, true))
        .containsExactly(new LockStep.Reserve(), new LockStep.Report(null, false));
  }

  @Test
  void inRandomWorldsNoPodIsLabeledBesideAnotherOrWithoutItsGrantAndNoGrantGoesBeforeItsLabel() {
    Random random = new Random(20261204L);
    for (int n = 0; n < 5_000; n++) {
      FakeLockSides fakes = new FakeLockSides();
      int podCount = 1 + random.nextInt(3);
      List<LockWorld.LockCandidate> pods = new ArrayList<>();
      Map<String, Boolean> alive = new HashMap<>();
      for (int p = 0; p < podCount; p++) {
        String name = "p" + p;
        fakes.api.pod(name);
        pods.add(candidate(name, random.nextInt(3) > 0));
        alive.put(grantTo(name), true);
      }
      List<String> values = new ArrayList<>();
      values.add(null);
      for (int p = 0; p < podCount; p++) {
        values.add(grantTo("p" + p));
        String app = LockValues.pod(NS, "p" + p, "p" + p + "-uid", "r");
        values.add(app);
        alive.put(app, true);
      }
      String dead = grantTo("gone");
      values.add(dead);
      alive.put(dead, false);
      values.add(LockLabels.grantValue("east", NS, "p0", "p0-uid"));
      values.add("ci-runner:x");
      fakes.redis.value = values.get(random.nextInt(values.size()));
      fakes.redis.counter = random.nextInt(20);
      // Stale labels from a cache that lagged, at most on pods that exist.
      for (int p = 0; p < podCount; p++) {
        if (random.nextInt(3) == 0) {
          fakes.api.labeled.put("p" + p, (long) random.nextInt(20));
        }
      }
      String granted =
          fakes.redis.value != null
                  && LockLabels.grantedHere(fakes.redis.value, CLUSTER).isPresent()
                  && random.nextBoolean()
              ? fakes.redis.value
              : null;
      LockState state = granted == null ? LockState.EMPTY : grantedTo(fakes, granted);
      Map<String, Boolean> seen = new HashMap<>();
      fakes.redis.view().values().forEach(v -> seen.put(v, alive.getOrDefault(v, true)));
      LockWorld w =
          world(
              fakes,
              random.nextInt(4) > 0,
              random.nextInt(10) == 0,
              pods,
              seen,
              state,
              random.nextBoolean());
      // Sometimes an application takes the free lock, or lets go of its hold, between the read
      // and the plan's writes. (A grant of ours is not lost within its ttl but by Redis losing
      // its data, which a renewal the plan reuses cannot see: docs/design.md, "Locks are
      // exclusive".)
      if (random.nextInt(5) == 0) {
        if (fakes.redis.value == null) {
          fakes.redis.value = LockValues.pod(NS, "p0", "p0-uid", "late");
        } else if (LockLabels.grantedHere(fakes.redis.value, CLUSTER).isEmpty()) {
          fakes.redis.value = null;
        }
      }
      fakes.breaks.clear();

      LockActuator.Outcome out = carry(fakes, state, w);

      String context = "world " + n + ": " + w + " plan " + LockDecision.plan(w, false);
      assertThat(fakes.breaks).as(context).isEmpty();
      assertThat(out.failure()).as(context).isNull();
      assertThat(out.last()).as("every plan ends with a last step: " + context).isNotNull();
    }
  }
}
