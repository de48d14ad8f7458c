package dev.baton.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.client.BatonLeadership;
import dev.baton.client.BatonNames;
import dev.baton.testkit.EmbeddedKubernetes;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The pod watch that the agent and Java applications follow their leadership by, against an API
 * server that refuses a WebSocket watch without an Origin header, as a real one does: on a real
 * node the old watch never opened, so the agent learned of its demotion only from its next read,
 * and held connections were cut 422 ms (p50) after the leader was deleted.
 */
class PodWatchIT {

  @Test
  void aDemotionArrivesThroughTheWatchLongBeforeTheNextRead() {
    try (EmbeddedKubernetes api = EmbeddedKubernetes.start()) {
      FollowedPod.create(api, BatonNames.LEADER, "4");
      // Reads a minute apart: whatever is learned sooner came through the watch.
      try (BatonLeadership leadership = FollowedPod.follow(api, Duration.ofMinutes(1))) {
        List<String> heard = FollowedPod.heard(leadership);
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.contains("granted 4"));
        await().atMost(Duration.ofSeconds(10)).until(leadership::watching);

        FollowedPod.label(api, BatonNames.FOLLOWER, null);
        // The next read is a minute away.
        await().atMost(Duration.ofSeconds(20)).until(() -> heard.contains("revoked"));
        assertThat(leadership.watchFailures()).isZero();
      }
    }
  }

  @Test
  void aRefusedWatchIsCountedAndAskedForAgainLaterAndLater() {
    List<Long> watches = new CopyOnWriteArrayList<>();
    try (EmbeddedKubernetes api =
        EmbeddedKubernetes.start(
            real ->
                new io.fabric8.mockwebserver.http.Dispatcher() {
                  @Override
                  public MockResponse dispatch(
                      io.fabric8.mockwebserver.http.RecordedRequest request) {
                    if (request.getPath().contains("watch=true")
                        && request.getPath().contains("fieldSelector")) {
                      watches.add(System.nanoTime());
                      return new MockResponse()
                          .setResponseCode(403)
                          .setBody("{\"kind\":\"Status\",\"code\":403,\"reason\":\"Forbidden\"}");
                    }
                    return real.dispatch(request);
                  }
                })) {
      FollowedPod.create(api, BatonNames.LEADER, "4");
      try (BatonLeadership leadership = FollowedPod.follow(api, Duration.ofMillis(200))) {
        await().atMost(Duration.ofSeconds(20)).until(() -> watches.size() >= 5);
        assertThat(leadership.watching()).isFalse();
        assertThat(leadership.watchFailures()).isGreaterThanOrEqualTo(4);
        assertThat(leadership.isLeader()).as("the reads go on confirming").isTrue();
        // Later and later: the fifth request waited the fourth back-off, 400 ms (timers never
        // fire early).
        assertThat(watches.get(4) - watches.get(3))
            .as("the wait before the fifth watch")
            .isGreaterThanOrEqualTo(Duration.ofMillis(380).toNanos());
      }
    }
  }

  @Test
  void aNewTermOnTheWatchIsGrantedBeforeTheReadItTriggersAnswers() {
    AtomicBoolean readsHeld = new AtomicBoolean();
    try (EmbeddedKubernetes api = EmbeddedKubernetes.start(real -> holdingReads(real, readsHeld))) {
      FollowedPod.create(api, BatonNames.FOLLOWER, null);
      try (BatonLeadership leadership = FollowedPod.follow(api, Duration.ofMinutes(1))) {
        List<String> heard = FollowedPod.heard(leadership);
        await().atMost(Duration.ofSeconds(10)).until(leadership::watching);
        readsHeld.set(true);

        relabel(
            api,
            "{\"metadata\":{\"labels\":{\"baton.dev/role\":\"leader\"},"
                + "\"annotations\":{\"baton.dev/term\":\"5\"}}}");
        // Every read of the pod now waits 30 s for its answer: the grant came from the event.
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.contains("granted 5"));
      }
    }
  }

  @Test
  void anEventOfTheTermAlreadyGrantedExtendsNothing() {
    AtomicBoolean readsHeld = new AtomicBoolean();
    try (EmbeddedKubernetes api = EmbeddedKubernetes.start(real -> holdingReads(real, readsHeld))) {
      FollowedPod.create(api, BatonNames.LEADER, "4");
      // Reads 200 ms apart, each answer good for 800 ms; a held read times out after 200 ms.
      try (BatonLeadership leadership = FollowedPod.follow(api, Duration.ofMillis(200))) {
        List<String> heard = FollowedPod.heard(leadership);
        await().atMost(Duration.ofSeconds(10)).until(() -> heard.contains("granted 4"));
        await().atMost(Duration.ofSeconds(10)).until(leadership::watching);
        readsHeld.set(true);

        // Events of term 4, every 50 ms, while no read is answered: the belief runs out anyway.
        long until = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        int n = 0;
        while (!heard.contains("revoked") && System.nanoTime() - until < 0) {
          relabel(api, "{\"metadata\":{\"annotations\":{\"test/n\":\"" + n++ + "\"}}}");
          sleep(50);
        }
        assertThat(heard).containsExactly("granted 4", "revoked");
      }
    }
  }

  private static void relabel(EmbeddedKubernetes api, String mergePatch) {
    api.client()
        .pods()
        .inNamespace("shop")
        .withName("p")
        .patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch);
  }

  /**
   * The API server, but every plain read of pod p by the leadership's own client (the JDK's, not
   * the test's Fabric8 client, which reads before it patches) waits 30 s for its body while {@code
   * held}.
   */
  private static Dispatcher holdingReads(Dispatcher real, AtomicBoolean held) {
    return new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        MockResponse answer = real.dispatch(request);
        boolean podRead =
            "GET".equals(request.getMethod())
                && request.getPath().startsWith("/api/v1/namespaces/shop/pods/p")
                && !request.getPath().contains("watch=true")
                && String.valueOf(request.getHeader("User-Agent")).startsWith("Java-http-client");
        return podRead && held.get() ? answer.setBodyDelay(Duration.ofSeconds(30)) : answer;
      }
    };
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
