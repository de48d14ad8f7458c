package dev.baton.agent.kube;

import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.client.BatonLeadership;
import dev.baton.client.BatonNames;
import dev.baton.client.KubernetesApi;
import dev.baton.client.LeadershipListener;
import dev.baton.testkit.EmbeddedKubernetes;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * The pod watch when it fails to open, as a new pod's first connection to a real API server can
 * time out (the test kit cuts the first watch requests before an answer): asked for again soon,
 * then later and later; meanwhile the pod is read often enough that a promotion is learned without
 * it; once it opens, news arrives through it again. Reads are otherwise a minute apart, so whatever
 * is learned sooner came through the frequent reads or the watch.
 */
class PodWatchRecoveryIT {

  private static final String ROLE = "baton.dev/role";

  @Test
  void aWatchThatFailsToOpenIsAskedForAgainAndAPromotionIsLearnedByReadsMeanwhile() {
    try (EmbeddedKubernetes api = EmbeddedKubernetes.start()) {
      api.dropWatches("pods", 1_000);
      api.client()
          .resource(
              new PodBuilder()
                  .withNewMetadata()
                  .withName("p")
                  .withNamespace("shop")
                  .addToLabels(ROLE, BatonNames.FOLLOWER)
                  .endMetadata()
                  .build())
          .create();
      List<String> heard = new CopyOnWriteArrayList<>();
      try (BatonLeadership leadership = follow(api, heard)) {
        await().atMost(WAIT).until(() -> api.droppedWatches("pods").size() >= 5);
        assertThat(leadership.watchState()).isEqualTo(BatonLeadership.WatchState.BROKEN);
        assertThat(leadership.watching()).isFalse();
        assertThat(leadership.watchFailures()).isGreaterThanOrEqualTo(4);
        List<Long> asked = api.droppedWatches("pods");
        // Retried within 100 ms, then later and later: the fifth request waited the fourth
        // back-off, 400 ms (timers never fire early; the first waits are not timed here).
        assertThat(asked.get(4) - asked.get(3))
            .as("the wait before the fifth watch")
            .isGreaterThanOrEqualTo(Duration.ofMillis(380).toNanos());

        label("leader", "7", api);
        // The next read at the usual pace is a minute away: the frequent reads tell it.
        await().atMost(WAIT).until(() -> heard.contains("granted 7"));
        assertThat(leadership.watching()).isFalse();

        api.dropWatches("pods", 0);
        await().atMost(WAIT).until(leadership::watching);
        assertThat(leadership.watchState()).isEqualTo(BatonLeadership.WatchState.OPEN);
        label("follower", null, api);
        await().atMost(WAIT).until(() -> heard.contains("revoked"));
      }
    }
  }

  private static BatonLeadership follow(EmbeddedKubernetes api, List<String> heard) {
    Duration confirmEvery = Duration.ofMinutes(1);
    BatonLeadership leadership =
        BatonLeadership.watchingPod(
            KubernetesApi.withoutCredentials(URI.create(api.url())),
            "shop",
            "p",
            new BatonLeadership.Options(confirmEvery, confirmEvery.multipliedBy(4), false, ROLE),
            BatonLeadership.Promotion.AT_ONCE,
            facts -> {});
    leadership.addListener(
        new LeadershipListener() {
          @Override
          public void granted(long term) {
            heard.add("granted " + term);
          }

          @Override
          public void revoked(String reason) {
            heard.add("revoked");
          }
        });
    return leadership;
  }

  private static void label(String role, String term, EmbeddedKubernetes api) {
    api.client()
        .pods()
        .inNamespace("shop")
        .withName("p")
        .edit(
            p -> {
              PodBuilder b = new PodBuilder(p).editMetadata().addToLabels(ROLE, role).endMetadata();
              if (term != null) {
                b.editMetadata().addToAnnotations(BatonNames.TERM_ANNOTATION, term).endMetadata();
              }
              return b.build();
            });
  }
}
