package dev.baton.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.metrics.Liveness;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The end of every reconcile, against the embedded API server in CRUD mode. */
class ResourceReporterTest {

  private final AtomicLong now = new AtomicLong();
  private final Liveness liveness = new Liveness(now::get);
  private final List<String> forgotten = new ArrayList<>();
  private final List<String> told = new ArrayList<>();

  /** A reporter of LeaderGroups whose reservation is status.reservedTerm, never lowered. */
  private final class Reporter extends ResourceReporter<LeaderGroup, LeaderGroupStatus, String> {
    Reporter(EmbeddedKubernetes kube) {
      super(
          new Reporting(
              new EventRecorder(kube.client(), Clock.systemUTC()) {
                @Override
                public void record(HasMetadata about, EventReason reason, String message) {
                  told.add(reason + ": " + message);
                }
              },
              new BatonMetrics(new SimpleMeterRegistry()),
              liveness,
              new StatusWriter(kube.client()),
              Clock.systemUTC()),
          new ReportedKind<>(
              (current, next) -> {
                if (reserved(current) > reserved(next)) {
                  next.setReservedTerm(current.getReservedTerm());
                }
                return next;
              },
              ResourceReporterTest::reserved,
              LeaderGroupStatus::getConditions,
              LeaderGroupStatus::setConditions,
              "nothing of its own"));
    }

    long end(LeaderGroup group, LeaderGroupStatus next, Duration reschedule) {
      return write(group, next, reschedule);
    }

    @Override
    protected void forgetSeries(String namespace, String name) {
      forgotten.add(namespace + "/" + name);
    }
  }

  private static long reserved(LeaderGroupStatus s) {
    return s == null || s.getReservedTerm() == null ? 0 : s.getReservedTerm();
  }

  private static LeaderGroupStatus status(String leader, Long reservedTerm) {
    LeaderGroupStatus s = new LeaderGroupStatus();
    s.setLeader(leader);
    s.setReservedTerm(reservedTerm);
    return s;
  }

  @Test
  void writesTheStatusKeepsTheHigherReservationAndSaysItBack() {
    try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
      LeaderGroup group = kube.client().resource(Sandbox.group("payments", "payments")).create();
      Reporter reporter = new Reporter(kube);

      assertThat(reporter.end(group, status("payments-0", 200L), Duration.ofSeconds(10)))
          .isEqualTo(200);
      LeaderGroup seen = kube.client().resource(group).get();
      assertThat(seen.getStatus().getLeader()).isEqualTo("payments-0");

      // A later reconcile that knows a lower reservation must not lower the one on the server.
      assertThat(reporter.end(seen, status("payments-1", 100L), Duration.ofSeconds(10)))
          .isEqualTo(200);
      seen = kube.client().resource(group).get();
      assertThat(seen.getStatus().getLeader()).isEqualTo("payments-1");
      assertThat(seen.getStatus().getReservedTerm()).isEqualTo(200);
    }
  }

  @Test
  void aReconcileThatEndsTellsLivenessWhenTheNextIsDueAndAForgottenResourceIsNotAwaited() {
    try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
      LeaderGroup group = kube.client().resource(Sandbox.group("payments", "payments")).create();
      Reporter reporter = new Reporter(kube);

      reporter.end(group, status("payments-0", null), Duration.ofSeconds(10));
      assertThat(liveness.checkAt(Duration.ofSeconds(30).toNanos()).ok()).isTrue();
      var overdue = liveness.checkAt(Duration.ofMinutes(5).toNanos());
      assertThat(overdue.ok()).isFalse();
      assertThat(overdue.detail()).contains("LeaderGroup shop/payments");

      reporter.forget(group);
      assertThat(liveness.checkAt(Duration.ofMinutes(5).toNanos()).ok()).isTrue();
      assertThat(forgotten).containsExactly("shop/payments");
    }
  }

  @Test
  void eachProblemAndEachOutageIsToldOnceAndWhatWasToldIsForgottenWithTheResource() {
    try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
      LeaderGroup group = kube.client().resource(Sandbox.group("payments", "payments")).create();
      Reporter reporter = new Reporter(kube);
      Said<String> said = reporter.recall(group);
      assertThat(said).isEqualTo(Said.nothing("nothing of its own"));

      said = reporter.problemOnce(group, said, EventReason.InvalidSpec, "bad ttl");
      said = reporter.problemOnce(group, said, EventReason.InvalidSpec, "bad ttl");
      said = reporter.redisLost(group, said, EventReason.RedisUnavailable, "down", "down, told");
      said = reporter.redisLost(group, said, EventReason.RedisUnavailable, "down", "down, told");
      reporter.remember(group, said);
      said = reporter.recall(group);
      said = reporter.redisLost(group, said, EventReason.RedisUnavailable, "down", "down, told");
      assertThat(told).containsExactly("InvalidSpec: bad ttl", "RedisUnavailable: down, told");

      said = reporter.redisBack(group, said);
      said = reporter.redisBack(group, said);
      said = reporter.problemOnce(group, said, EventReason.InvalidSpec, "bad ttl");
      assertThat(told)
          .as("back once; a problem told before the outage is told again after it")
          .containsExactly(
              "InvalidSpec: bad ttl",
              "RedisUnavailable: down, told",
              "RedisRecovered: Redis is reachable again",
              "InvalidSpec: bad ttl");

      reporter.remember(group, said);
      reporter.forget(group);
      assertThat(reporter.recall(group)).isEqualTo(Said.nothing("nothing of its own"));
    }
  }

  @Test
  void aResourceGoneBeforeItsStatusWasWrittenReportsNoReservation() {
    try (EmbeddedKubernetes kube = EmbeddedKubernetes.start()) {
      LeaderGroup group = kube.client().resource(Sandbox.group("payments", "payments")).create();
      kube.client().resource(group).delete();
      Reporter reporter = new Reporter(kube);

      assertThat(reporter.end(group, status("payments-0", 300L), null)).isZero();
    }
  }
}
