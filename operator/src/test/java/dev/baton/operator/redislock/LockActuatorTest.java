package dev.baton.operator.redislock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.client.LockValues;
import dev.baton.operator.fencing.Reservations;
import dev.baton.operator.pods.Candidate;
import dev.baton.operator.testing.BatonCluster;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The act step against Redis and the API server held in memory: the order of its writes (labels
 * before locks), and what its outcomes say was done. The state is a value: each test keeps what the
 * outcomes leave, as the reconciler does.
 */
class LockActuatorTest {

  private static final String CLUSTER = "default";

  private final FakeLockSides fakes = new FakeLockSides();
  private final RedisLock lock = BatonCluster.grantedLock("migration", "30s", "worker");
  private final LockSettings settings = LockSettings.of(lock);
  private LockState state = LockState.EMPTY;
  private final LockActuator actuator =
      new LockActuator(CLUSTER, fakes.api, Reservations.tokens(null), System::nanoTime);

  private static LockWorld.LockCandidate candidate(String name) {
    Candidate c =
        new Candidate(
            name,
            name + "-uid",
            true,
            Candidate.Ineligibility.NONE,
            Instant.parse("2026-01-01T00:00:00Z"),
            0,
            false);
    return new LockWorld.LockCandidate(c, "shop", false, FakeLockSides.podNamed(name));
  }

  /** The world the observe step would show now: Redis, the labels, the grant the state names. */
  private LockWorld world() {
    return new LockWorld(
        CLUSTER,
        true,
        false,
        fakes.redis.view(),
        List.of(candidate("a"), candidate("b")),
        fakes.api.labeledPods(),
        Map.of(),
        state.grantedValue(),
        state.grant(),
        false,
        null,
        false,
        null,
        null);
  }

  /** The Keep the plan makes for {@code value} on pod a in that world. */
  private LockStep.Keep keepA(String value) {
    return LockDecision.keep(world(), candidate("a"), value);
  }

  private static String grantTo(String pod) {
    return LockLabels.grantValue(CLUSTER, "shop", pod, pod + "-uid");
  }

  /** Carries out {@code steps} and keeps the state they leave. */
  private LockActuator.Outcome carry(LockStep... steps) {
    LockActuator.Outcome out =
        actuator.carryOut(
            new LockActuator.Scope(lock, settings, fakes.redis, state), world(), List.of(steps));
    state = state.record(out.done(), System.nanoTime(), "2026-12-04T00:00:00Z");
    return out;
  }

  /** The outcome of the only step carried out. */
  private LockOutcome only(LockStep step) {
    LockActuator.Outcome out = carry(step);
    assertThat(out.failure()).isNull();
    assertThat(out.done()).hasSize(1);
    return out.done().get(0);
  }

  /** A grant this operator remembers, as a reconcile that made it leaves the state. */
  private void remember(String value, long token) {
    state =
        LockState.EMPTY.record(
            List.of(
                new LockOutcome.Granted(
                    value,
                    LockValues.parsePod(value).orElseThrow().name(),
                    token,
                    null,
                    null,
                    fakes.redis.view(),
                    settings.interval())),
            0,
            "2026-12-04T00:00:00Z");
  }

  @Test
  void aGrantTakesTheLockThenLabelsTheHolderWithTheTokenItCarries() {
    fakes.api.pod("a");
    fakes.api.pod("b");
    fakes.redis.counter = 41;

    LockOutcome out = only(new LockStep.Grant(candidate("a"), null, null));

    assertThat(out).isInstanceOf(LockOutcome.Granted.class);
    LockOutcome.Granted granted = (LockOutcome.Granted) out;
    assertThat(granted.token()).isEqualTo(42);
    assertThat(granted.pod()).isEqualTo("a");
    assertThat(granted.value()).isEqualTo(fakes.redis.value);
    assertThat(LockLabels.grantedHere(granted.value(), CLUSTER))
        .map(LockValues.PodRef::uid)
        .contains("a-uid");
    assertThat(fakes.journal)
        .containsExactly("acquire " + granted.value(), "unlabel all but a-uid", "label a 42");
    assertThat(fakes.api.labeled).containsExactly(Map.entry("a", 42L));
    assertThat(state.grantedValue()).isEqualTo(granted.value());
  }

  @Test
  void aRefusedAcquireLabelsNobody() {
    fakes.api.pod("a");
    fakes.redis.value = "app-holder";

    LockOutcome out = only(new LockStep.Grant(candidate("a"), null, null));

    assertThat(out).isInstanceOf(LockOutcome.Refused.class);
    assertThat(fakes.journal).hasSize(1).allMatch(w -> w.startsWith("acquire "));
    assertThat(fakes.api.labeled).isEmpty();
    assertThat(state.grant()).isNull();
  }

  @Test
  void aGrantWhoseLabelFailsStaysRememberedForTheNextReconcileToLabel() {
    fakes.api.pod("a");
    fakes.api.failNext("label a", 500);

    LockActuator.Outcome failed = carry(new LockStep.Grant(candidate("a"), null, null));
    assertThat(failed.failure()).isInstanceOf(KubernetesClientException.class);
    // The grant is reported although its label never went on.
    assertThat(failed.done()).singleElement().isInstanceOf(LockOutcome.Granted.class);
    assertThat(((LockOutcome.Granted) failed.done().get(0)).value()).isEqualTo(fakes.redis.value);

    assertThat(fakes.journal).endsWith("failed: label a 1");
    assertThat(fakes.redis.value).isNotNull();
    assertThat(state.grantedValue()).isEqualTo(fakes.redis.value);
    assertThat(fakes.api.labeled).isEmpty();

    // The next reconcile finds the grant in Redis, knows it as its own, and labels its pod.
    fakes.journal.clear();
    LockOutcome next = only(keepA(fakes.redis.value));
    assertThat(next).isInstanceOf(LockOutcome.Kept.class);
    assertThat(((LockOutcome.Kept) next).adopted()).as("it was this operator's grant").isFalse();
    assertThat(fakes.journal).containsExactly("unlabel cached [b]", "label a 1");
    assertThat(fakes.api.labeled).containsExactly(Map.entry("a", 1L));
  }

  @Test
  void anAdoptionWhoseLabelFailsIsAdoptedAndReportedByTheNextReconcile() {
    fakes.api.pod("a");
    String value = grantTo("a");
    fakes.redis.value = value;
    fakes.redis.counter = 4;
    fakes.api.failNext("label a", 500);

    assertThat(carry(keepA(value)).failure()).isInstanceOf(KubernetesClientException.class);
    assertThat(state.grant()).as("not remembered while its pod is unlabeled").isNull();

    LockOutcome.Kept kept = (LockOutcome.Kept) only(keepA(value));
    assertThat(kept.adopted()).isTrue();
    assertThat(kept.token()).isEqualTo(4);
    assertThat(fakes.api.labeled).containsExactly(Map.entry("a", 4L));
    assertThat(state.grantedValue()).isEqualTo(value);
  }

  @Test
  void aMoveWhoseUnlabelFailsLeavesTheLockWithItsHolder() {
    String value = grantTo("a");
    fakes.redis.value = value;
    fakes.api.labeled.put("a", 7L);
    fakes.api.failNext("unlabel", 409);
    LockStep.Move move = new LockStep.Move(value, LockValues.parsePod(value).orElseThrow(), "x");

    assertThat(carry(move).failure()).isInstanceOf(KubernetesClientException.class);

    assertThat(fakes.journal).containsExactly("failed: unlabel a");
    assertThat(fakes.redis.value).as("no release after a failed unlabel").isEqualTo(value);
    assertThat(fakes.api.labeled).containsKey("a");
  }

  @Test
  void aMoveUnlabelsItsPodBeforeItReleasesTheGrant() {
    String value = grantTo("a");
    fakes.redis.value = value;
    fakes.api.labeled.put("a", 7L);
    LockStep.Move move =
        new LockStep.Move(value, LockValues.parsePod(value).orElseThrow(), "is not ready");

    LockOutcome out = only(move);

    assertThat(out).isEqualTo(new LockOutcome.Moved(value, "shop/a", "is not ready"));
    assertThat(fakes.journal).containsExactly("unlabel a", "release " + value);
    assertThat(fakes.redis.value).isNull();
  }

  @Test
  void aReapDeletesOnlyTheValueItWasGivenAndSaysWhich() {
    String gone = LockValues.pod("shop", "gone", "gone-uid", "x");
    String other = LockValues.pod("shop", "live", "live-uid", "y");
    fakes.redis.value = other;

    LockOutcome out = only(new LockStep.Reap(List.of(gone)));

    assertThat(out).isEqualTo(new LockOutcome.Reaped(List.of()));
    assertThat(fakes.redis.value).as("another holder's lock stays").isEqualTo(other);

    fakes.redis.value = gone;
    fakes.redis.counter = 9;
    out = only(new LockStep.Reap(List.of(gone)));

    assertThat(out).isEqualTo(new LockOutcome.Reaped(List.of(new LockOutcome.Released(gone, 9))));
    assertThat(fakes.redis.value).isNull();
  }

  @Test
  void aForceReleaseUnlabelsReleasesAndOnlyThenTakesTheRequestOff() {
    String value = grantTo("a");
    fakes.redis.value = value;
    fakes.redis.counter = 5;
    fakes.api.labeled.put("a", 5L);
    remember(value, 5);

    LockOutcome out = only(new LockStep.ForceRelease(List.of(value, "somebody-else")));

    assertThat(out)
        .isEqualTo(new LockOutcome.ForceReleased(List.of(new LockOutcome.Released(value, 5))));
    assertThat(fakes.journal)
        .containsExactly(
            "unlabel all but null", "release " + value, "release somebody-else", "request done");
    assertThat(state.grant()).isNull();
    assertThat(fakes.api.labeled).isEmpty();
  }

  @Test
  void keepingAGrantAdoptsItRemovesStaleLabelsAndLabelsTheHolder() {
    fakes.api.pod("a");
    fakes.api.pod("b");
    fakes.api.labeled.put("b", 3L);
    String value = grantTo("a");
    fakes.redis.value = value;
    fakes.redis.counter = 4;

    LockOutcome out = only(keepA(value));

    assertThat(out).isInstanceOf(LockOutcome.Kept.class);
    LockOutcome.Kept kept = (LockOutcome.Kept) out;
    assertThat(kept.adopted()).isTrue();
    assertThat(kept.token()).isEqualTo(4);
    assertThat(fakes.journal).containsExactly("unlabel cached [b]", "label a 4");
    assertThat(fakes.api.labeled).containsExactly(Map.entry("a", 4L));
    assertThat(state.grantedValue()).isEqualTo(value);

    fakes.journal.clear();
    kept = (LockOutcome.Kept) only(keepA(value));
    assertThat(kept.adopted()).as("known since the last reconcile").isFalse();
  }

  @Test
  void standingAsideForAnotherHolderSaysWhichGrantWasLost() {
    String ours = grantTo("a");
    remember(ours, 2);
    fakes.api.labeled.put("a", 2L);
    fakes.redis.value = "app-holder";
    fakes.redis.counter = 3;

    LockOutcome out = only(LockDecision.decide(world()));

    assertThat(out).isInstanceOf(LockOutcome.StoodAside.class);
    LockOutcome.StoodAside aside = (LockOutcome.StoodAside) out;
    assertThat(aside.lostFrom()).isEqualTo("a");
    assertThat(aside.token()).isEqualTo(3);
    assertThat(fakes.journal).containsExactly("unlabel all but null");
    assertThat(state.grant()).isNull();

    fakes.journal.clear();
    aside = (LockOutcome.StoodAside) only(LockDecision.decide(world()));
    assertThat(aside.lostFrom()).as("nothing of ours left to lose").isNull();
  }

  @Test
  void aRenewalAnswersWithRedisViewAndRefreshesTheGrantItRenewed() {
    String value = grantTo("a");
    fakes.redis.value = value;
    remember(value, 1);
    long before = state.grant().renewedAtNanos();

    LockOutcome out = only(new LockStep.Renew(value, 1));

    assertThat(out).isInstanceOf(LockOutcome.Renewed.class);
    assertThat(((LockOutcome.Renewed) out).result().ok()).isTrue();
    assertThat(state.grant().view()).isNotNull();
    assertThat(state.grant().renewedAtNanos()).isGreaterThan(before);
  }
}
