package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The checker itself catches what it is there to catch. */
class InvariantCheckerTest {

  private static Pod leader(String name, long term) {
    Pod p = Sandbox.readyPod("shop", name, Map.of("app", "g", "baton.dev/role", "leader"));
    p.getMetadata()
        .setAnnotations(
            Map.of("baton.dev/leader-group", "g", "baton.dev/term", Long.toString(term)));
    return p;
  }

  @Test
  void reportsTwoLeadersATermGoingBackAndAStaleRedisHolder() {
    try (EmbeddedKubernetes kube = EmbeddedKubernetes.start();
        InvariantChecker checker =
            new InvariantChecker(
                kube.client(),
                "shop",
                "baton.dev/role",
                Duration.ofMillis(300),
                () -> Map.of("g", "elsewhere"))) {
      kube.client().pods().resource(leader("a", 5)).create();
      kube.client().pods().resource(leader("b", 4)).create();
      await()
          .atMost(Duration.ofSeconds(5))
          .untilAsserted(
              () ->
                  assertThat(checker.violations())
                      .anyMatch(v -> v.contains("two leaders at once"))
                      .anyMatch(v -> v.contains("term went back from 5 to 4"))
                      .anyMatch(v -> v.contains("new leader b with term 4"))
                      .anyMatch(v -> v.contains("is not the Redis holder elsewhere")));
    }
  }
}
