package dev.baton.operator.leadergroup;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.client.ElectionKeys;
import dev.baton.operator.testing.ClusterTest;
import dev.baton.testkit.RoleWatcher;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * spec.paused as Patroni's pause: leadership frozen (nobody elected, labels untouched), the current
 * leader's lease still renewed while its pod exists, Paused=True and Ready still meaning "has a
 * leader". Real Redis, the mock API server; the group's lease lives 3 s.
 */
class PausedIT extends ClusterTest {

  /** Longer than the group's 3 s ttl: a lease not renewed would have expired within it. */
  private static final Duration PAST_TTL = Duration.ofSeconds(4);

  private void setPaused(boolean paused) {
    cluster
        .client
        .resources(LeaderGroup.class)
        .inNamespace(NS)
        .withName("payments")
        .edit(
            g -> {
              g.getSpec().setPaused(paused);
              return g;
            });
  }

  private String holderInRedis() {
    return cluster.redis.command("GET", new ElectionKeys(NS + "/payments").holder());
  }

  private String condition(String type) {
    return cluster.condition("payments", type).map(c -> c.getStatus()).orElse("absent");
  }

  @Test
  void pausedKeepsTheLeadersLeaseWhileItsPodExistsAndElectsNobody() {
    String leader = cluster.startGroup("payments", 3);
    assertThat(condition("Paused")).isEqualTo("absent");

    try (RoleWatcher watcher = new RoleWatcher(cluster.client, NS, ROLE)) {
      setPaused(true);
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                assertThat(condition("Paused")).isEqualTo("True");
                assertThat(condition("Ready")).as("still has a leader").isEqualTo("True");
              });

      // Not ready while paused: no failover, and the lease is still renewed past its ttl.
      cluster.setReady(leader, false);
      await()
          .during(PAST_TTL)
          .atMost(PAST_TTL.plusSeconds(5))
          .until(
              () ->
                  holderInRedis().contains(leader)
                      && cluster.leaders(ROLE).equals(java.util.List.of(leader)));
      assertThat(cluster.status("payments").getTerm()).isEqualTo(1L);
      assertThat(condition("Ready")).isEqualTo("True");

      // Its pod gone, nothing is renewed: the lease lapses within its ttl, nobody is elected.
      cluster.deletePod(leader);
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                assertThat(holderInRedis()).as("lease lapsed").doesNotContain(leader);
                assertThat(condition("Ready")).isEqualTo("False");
              });
      await()
          .during(Duration.ofSeconds(1))
          .atMost(Duration.ofSeconds(5))
          .until(() -> cluster.leaders(ROLE).isEmpty());
      assertThat(cluster.roles(ROLE).values()).containsOnly("follower");
      assertThat(cluster.condition("payments", "Ready").get().getReason()).isEqualTo("Paused");

      // Resumed: an election at once, with a new term.
      setPaused(false);
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                assertThat(cluster.leaders(ROLE)).hasSize(1).doesNotContain(leader);
                assertThat(cluster.status("payments").getTerm()).isGreaterThan(1L);
                assertThat(condition("Paused")).isEqualTo("absent");
                assertThat(condition("Ready")).isEqualTo("True");
              });
      assertThat(watcher.violations()).as(String.join("\n", watcher.history())).isEmpty();
    }
  }
}
