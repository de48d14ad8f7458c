package dev.baton.operator.redislock;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.ConditionType;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.client.InstanceView;
import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import dev.baton.operator.fencing.Reservations;
import dev.baton.operator.kube.Conditions;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.kube.EventRecorder;
import dev.baton.operator.kube.Reporting;
import dev.baton.operator.kube.StatusWriter;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.metrics.Liveness;
import dev.baton.operator.testing.BatonCluster;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The report step: outcomes of the act step turned into conditions, Events and metrics. */
class LockReporterTest {

  private static final Duration TEN = Duration.ofSeconds(10);

  /** An Event as it would have been recorded. */
  private record Recorded(EventReason reason, String message) {}

  private final List<Recorded> events = new ArrayList<>();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  private final Clock clock = Clock.fixed(Instant.parse("2026-12-01T12:00:00Z"), ZoneOffset.UTC);
  private final LockReporter reporter =
      new LockReporter(
          new Reporting(
              new EventRecorder(null, clock) {
                @Override
                public void record(HasMetadata about, EventReason reason, String message) {
                  events.add(new Recorded(reason, message));
                }
              },
              new BatonMetrics(registry),
              new Liveness(),
              new StatusWriter(null),
              clock),
          Reservations.tokens(null));
  private final RedisLock lock = BatonCluster.grantedLock("migration", "30s", "worker");
  private final LockSettings settings = LockSettings.of(lock);
  private LockState state = LockState.EMPTY;
  private LockReport report;

  private static final LockView FREE =
      new LockView(
          List.of(new InstanceView("redis", true, false, null, -2, 0, 1_000, false, null)), 1);

  private static String grantTo(String pod) {
    return LockLabels.grantValue("default", "shop", pod, pod + "-uid");
  }

  /**
   * Reports a reconcile whose plan did {@code done}, keeping the state it leaves; a plan that did
   * not end with a last step is given one that waits.
   */
  private LockReport reported(LockOutcome... done) {
    List<LockOutcome> steps = new ArrayList<>(List.of(done));
    if (!(steps.get(steps.size() - 1) instanceof LockOutcome.Last)) {
      steps.add(new LockOutcome.Waited(FREE, TEN));
    }
    LockState before = state;
    state = before.record(steps, System.nanoTime(), "2026-12-01T12:00:00Z");
    report =
        reporter.compose(
            lock,
            before,
            state,
            new LockEnding.Carried(
                settings,
                FREE,
                System.nanoTime(),
                new LockActuator.Outcome(steps, FREE, null, null),
                List.of()));
    return report;
  }

  private Condition ready() {
    return Conditions.find(report.conditions.build(), ConditionType.Ready).orElseThrow();
  }

  private double counted(String meter) {
    var counter = registry.find(meter).tag("lock", "migration").counter();
    return counter == null ? 0 : counter.count();
  }

  @Test
  void aGrantIsAnEventACountAndReadyWithItsToken() {
    String value = grantTo("a");

    reported(new LockOutcome.Granted(value, "a", 42, null, null, FREE, TEN));

    assertThat(events)
        .containsExactly(new Recorded(EventReason.LockAcquired, "a holds the lock with token 42"));
    assertThat(ready().getStatus()).isEqualTo("True");
    assertThat(ready().getReason()).isEqualTo("Granted");
    assertThat(ready().getMessage()).isEqualTo("a holds the lock with token 42");
    assertThat(counted(BatonMetrics.LOCK_ACQUISITIONS)).isEqualTo(1);
    assertThat(counted(BatonMetrics.LOCK_RELEASES)).isZero();
    assertThat(state.holder().value()).isEqualTo(value);
    assertThat(state.maxToken()).isEqualTo(42);
  }

  @Test
  void conditionsAreExportedAndOnesNoPathTouchesAreCarriedOver() {
    lock.setStatus(new dev.baton.api.v1alpha1.RedisLockStatus());
    lock.getStatus()
        .setConditions(
            List.of(
                new io.fabric8.kubernetes.api.model.ConditionBuilder()
                    .withType("SomethingNewer")
                    .withStatus("True")
                    .withReason("Older")
                    .withMessage("written by a newer operator")
                    .withLastTransitionTime("2026-11-30T00:00:00Z")
                    .build()));

    reported(new LockOutcome.Granted(grantTo("a"), "a", 42, null, null, FREE, TEN));

    assertThat(report.conditions.build())
        .extracting(Condition::getType)
        .contains("Ready", "RedisAvailable", "SomethingNewer")
        .as("not Redlock: no QuorumLost")
        .doesNotContain("QuorumLost");
    assertThat(lockCondition("Ready")).isEqualTo(1.0);
    assertThat(lockCondition("RedisAvailable")).isEqualTo(1.0);
    assertThat(registry.find(BatonMetrics.LOCK_CONDITION).tag("type", "QuorumLost").gauge())
        .isNull();

    reported(new LockOutcome.Refused(FREE, TEN));
    lock.getStatus().setConditions(report.status.getConditions());
    reported(new LockOutcome.NoneEligible(null, null, FREE, TEN));
    assertThat(lockCondition("Ready")).isZero();

    lock.getMetadata().setUid("migration-uid");
    reporter.forget(lock);
    assertThat(registry.find(BatonMetrics.LOCK_CONDITION).gauges()).isEmpty();
  }

  private double lockCondition(String type) {
    return registry
        .find(BatonMetrics.LOCK_CONDITION)
        .tags("lock", "migration", "type", type)
        .gauge()
        .value();
  }

  @Test
  void aGrantAfterAMoveSaysFromWhereAndWhyAndCountsTheRelease() {
    reported(new LockOutcome.Granted(grantTo("b"), "b", 8, "shop/a", "is not ready", FREE, TEN));

    assertThat(events)
        .containsExactly(
            new Recorded(
                EventReason.LockMoved, "moved from shop/a (is not ready) to b with token 8"));
    assertThat(counted(BatonMetrics.LOCK_RELEASES)).isEqualTo(1);
    assertThat(ready().getMessage()).isEqualTo("b holds the lock with token 8");
  }

  @Test
  void aRefusedAcquireCountsContentionAndSaysTheLockIsBeingTaken() {
    reported(new LockOutcome.Refused(FREE, TEN));

    assertThat(events).isEmpty();
    assertThat(counted(BatonMetrics.LOCK_CONTENTION)).isEqualTo(1);
    assertThat(ready().getStatus()).isEqualTo("False");
    assertThat(ready().getReason()).isEqualTo("Contended");
  }

  @Test
  void noEligiblePodIsReportedOnceUntilTheLockIsGrantedAgain() {
    reported(new LockOutcome.NoneEligible("shop/a", "is gone", FREE, TEN));
    reported(new LockOutcome.NoneEligible(null, null, FREE, TEN));

    assertThat(events)
        .containsExactly(
            new Recorded(
                EventReason.NoCandidates,
                "no ready pod matches spec.holderSelector; nobody holds the lock"
                    + " (shop/a is gone)"));
    assertThat(ready().getStatus()).isEqualTo("False");
    assertThat(ready().getReason()).isEqualTo("NoCandidates");

    reported(new LockOutcome.Kept(grantTo("a"), "a", 3, true, FREE, TEN));
    reported(new LockOutcome.NoneEligible(null, null, FREE, TEN));
    assertThat(events)
        .extracting(Recorded::reason)
        .containsOnly(EventReason.NoCandidates)
        .hasSize(2);
  }

  @Test
  void aLostGrantIsAWarningAStrangerHoldingIsNot() {
    reported(new LockOutcome.StoodAside("app-holder", 12, "a", FREE, TEN));

    assertThat(events)
        .containsExactly(
            new Recorded(EventReason.LockLost, "the lock granted to a is held by app-holder now"));
    assertThat(ready().getReason()).isEqualTo("HeldElsewhere");

    events.clear();
    reported(new LockOutcome.StoodAside("app-holder", 12, null, FREE, TEN));
    assertThat(events).isEmpty();
  }

  @Test
  void reapsAndForceReleasesAreEventsAndCounts() {
    String gone = LockValues.pod("shop", "gone", "gone-uid", "x");

    reported(
        new LockOutcome.Reaped(List.of(new LockOutcome.Released(gone, 9))),
        new LockOutcome.ForceReleased(List.of()),
        new LockOutcome.ForceReleased(List.of(new LockOutcome.Released(gone, 9))));

    assertThat(events)
        .containsExactly(
            new Recorded(
                EventReason.LockReaped,
                "reaped the lock of shop/gone (pod gone) without waiting for its ttl; token 9"),
            new Recorded(EventReason.ForceReleased, "force-release requested; the lock was free"),
            new Recorded(
                EventReason.ForceReleased,
                "force-released the lock of shop/gone (token 9) on request"));
    assertThat(counted(BatonMetrics.LOCK_REAPS)).isEqualTo(1);
    assertThat(counted(BatonMetrics.LOCK_RELEASES)).isEqualTo(1);
  }

  @Test
  void stepsThatOnlyChangeRedisReportNothing() {
    reported(
        new LockOutcome.Reclaimed(grantTo("a")),
        new LockOutcome.Moved(grantTo("a"), "shop/a", "is gone"));

    assertThat(events).isEmpty();
    assertThat(registry.getMeters()).noneMatch(m -> m instanceof Counter);
  }

  @Test
  void anApplicationsHolderIsAnEventWhenItChangesOnly() {
    String app = LockValues.pod("shop", "worker-1", "w1-uid", "r");

    reported(new LockOutcome.Observed(app, 5, FREE, TEN));
    reported(new LockOutcome.Observed(app, 5, FREE, TEN));

    assertThat(events)
        .containsExactly(
            new Recorded(EventReason.LockAcquired, "shop/worker-1 holds the lock with token 5"));
    assertThat(counted(BatonMetrics.LOCK_ACQUISITIONS)).isEqualTo(1);
    assertThat(ready().getReason()).isEqualTo("Held");

    LockReport free = reported(new LockOutcome.Observed(null, 0, FREE, TEN));
    assertThat(
            Conditions.find(free.conditions.build(), ConditionType.Ready).orElseThrow().getReason())
        .isEqualTo("Free");
    assertThat(state.holder()).isNull();
  }
}
