package dev.baton.operator.leadergroup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.ConditionType;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.operator.fencing.Reservations;
import dev.baton.operator.kube.Conditions;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.kube.EventRecorder;
import dev.baton.operator.kube.Reporting;
import dev.baton.operator.kube.Said;
import dev.baton.operator.kube.StatusWriter;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.metrics.Liveness;
import dev.baton.operator.routing.RouteCheck;
import dev.baton.operator.routing.RouteConvergence;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reporter alone turns what the other steps found into conditions and Events. */
class GroupReporterTest {

  private final List<String> events = new ArrayList<>();
  private final GroupReporter reporter =
      new GroupReporter(
          new Reporting(
              new EventRecorder(null, Clock.systemUTC()) {
                @Override
                public void record(HasMetadata about, EventReason reason, String message) {
                  events.add(reason + ": " + message);
                }
              },
              new BatonMetrics(new SimpleMeterRegistry()),
              new Liveness(),
              new StatusWriter(null),
              Clock.systemUTC()),
          Reservations.terms(null));
  private final LeaderGroup group = Sandbox.group("payments", "payments");

  @Test
  void aServiceProblemIsAConditionEachTimeAndAnEventOnce() {
    var routed =
        new GroupRouting.Routed(
            "spec.service: forbidden",
            new RouteCheck.Verdict(List.of(), RouteCheck.State.NO_SERVICE, "NoLeaderService", "-"),
            null,
            RouteConvergence.IDLE);

    GroupReport first = newReport(group);
    reporter.routed(first, routed);
    GroupReport second = new GroupReport(group, Clock.systemUTC(), System.nanoTime(), first.said);
    reporter.routed(second, routed);

    assertThat(condition(second, ConditionType.Routed).getStatus()).isEqualTo("False");
    assertThat(condition(second, ConditionType.Routed).getReason()).isEqualTo("ServiceProblem");
    assertThat(events).containsExactly("ServiceProblem: spec.service: forbidden");
  }

  @Test
  void viewsThatDisagreePastTheIntervalRaiseSplitBrainSuspectedWithAnEvent() {
    GroupReport fresh = newReport(group);
    reporter.viewsChecked(fresh, disagreeing(false), Duration.ofMillis(500));
    assertThat(condition(fresh, ConditionType.SplitBrainSuspected).getStatus()).isEqualTo("False");
    assertThat(events).isEmpty();

    GroupReport later = newReport(group);
    reporter.viewsChecked(later, disagreeing(true), Duration.ofMillis(500));

    assertThat(condition(later, ConditionType.SplitBrainSuspected).getStatus()).isEqualTo("True");
    assertThat(events)
        .containsExactly(
            "SplitBrainSuspected: Redis holder a, pods labeled leader [a, b] (for more than 500"
                + " ms)");
  }

  @Test
  void conditionsAPathDoesNotLookAtAreCarriedOver() {
    LeaderGroup paused = Sandbox.group("payments", "payments");
    paused.getSpec().setPaused(true);
    paused.setStatus(new dev.baton.api.v1alpha1.LeaderGroupStatus());
    paused
        .getStatus()
        .setConditions(
            new Conditions(List.of(), 1L, Clock.systemUTC())
                .set(ConditionType.Paused, true, "Paused", "spec.paused")
                .set(ConditionType.Conflict, true, "PodClaimedByOtherGroup", "payments-2")
                .build());

    GroupReport r = newReport(paused);
    reporter.viewsChecked(
        r, new SplitBrainCheck.Finding("agree", 0, false, null), Duration.ofMillis(500));

    assertThat(r.conditions.build())
        .extracting(Condition::getType)
        .containsExactly("Conflict", "Paused", "SplitBrainSuspected");
    assertThat(condition(r, ConditionType.Conflict).getStatus()).isEqualTo("True");
  }

  /** A report on the group by a reconcile that has said nothing yet. */
  private static GroupReport newReport(LeaderGroup g) {
    return new GroupReport(g, Clock.systemUTC(), System.nanoTime(), Said.nothing(null));
  }

  /** Redis and the labels disagree; for longer than the interval allows, or not yet. */
  private static SplitBrainCheck.Finding disagreeing(boolean pastInterval) {
    return new SplitBrainCheck.Finding(
        "Redis holder a, pods labeled leader [a, b]", 1, pastInterval, null);
  }

  private static Condition condition(GroupReport r, ConditionType type) {
    return Conditions.find(r.conditions.build(), type).orElseThrow();
  }
}
