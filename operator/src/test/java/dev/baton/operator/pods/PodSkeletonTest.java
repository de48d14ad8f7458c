package dev.baton.operator.pods;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.testkit.RealisticPods;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Map;
import org.junit.jupiter.api.Test;

class PodSkeletonTest {

  private static Pod pod() {
    return new PodBuilder(RealisticPods.pod("shop", "payments-0", Map.of("app", "payments")))
        .editMetadata()
        .withUid("u-1")
        .withResourceVersion("7")
        .withCreationTimestamp("2026-11-30T09:00:00Z")
        .addToAnnotations("baton.dev/term", "4")
        .addToAnnotations("locks.baton.dev/migrate", "12")
        .addToAnnotations("controller.kubernetes.io/pod-deletion-cost", "1000000")
        .endMetadata()
        .build();
  }

  @Test
  void keepsWhatTheOperatorReadsAndDropsTheRest() {
    Pod full = pod();
    Pod kept = PodSkeleton.of(full);
    assertThat(kept.getMetadata().getName()).isEqualTo("payments-0");
    assertThat(kept.getMetadata().getUid()).isEqualTo("u-1");
    assertThat(kept.getMetadata().getResourceVersion()).isEqualTo("7");
    assertThat(kept.getMetadata().getCreationTimestamp()).isEqualTo("2026-11-30T09:00:00Z");
    assertThat(kept.getMetadata().getLabels()).isEqualTo(full.getMetadata().getLabels());
    assertThat(kept.getMetadata().getAnnotations())
        .containsOnlyKeys(
            "baton.dev/term",
            "locks.baton.dev/migrate",
            "controller.kubernetes.io/pod-deletion-cost");
    assertThat(kept.getMetadata().getManagedFields()).isNullOrEmpty();
    assertThat(kept.getSpec().getNodeName()).isEqualTo("node-1");
    // Only containers with ports, and of them only name and ports.
    assertThat(kept.getSpec().getContainers()).extracting(c -> c.getName()).containsExactly("app");
    assertThat(kept.getSpec().getContainers().get(0).getPorts()).hasSize(1);
    assertThat(kept.getSpec().getContainers().get(0).getEnv()).isNullOrEmpty();
    assertThat(kept.getSpec().getVolumes()).isNullOrEmpty();
    assertThat(kept.getStatus().getPhase()).isEqualTo("Running");
    assertThat(kept.getStatus().getPodIP()).isEqualTo("10.3.0.7");
    assertThat(kept.getStatus().getConditions())
        .singleElement()
        .satisfies(
            c -> {
              assertThat(c.getType()).isEqualTo("Ready");
              assertThat(c.getStatus()).isEqualTo("True");
            });
    assertThat(kept.getStatus().getContainerStatuses()).isNullOrEmpty();
    // The original is untouched, and the skeleton is a fraction of its size.
    assertThat(full.getSpec().getVolumes()).hasSize(1);
    assertThat(Serialization.asJson(kept).length())
        .isLessThan(Serialization.asJson(full).length() / 4);
  }

  @Test
  void podsWithoutOurAnnotationsKeepAnEmptyMapSoNullStillMeansNone() {
    Pod bare = Sandbox.readyPod("shop", "a", Map.of("app", "x"));
    assertThat(PodSkeleton.of(bare).getMetadata().getAnnotations()).isNull();
    Pod other =
        new PodBuilder(bare).editMetadata().addToAnnotations("team", "blue").endMetadata().build();
    assertThat(PodSkeleton.of(other).getMetadata().getAnnotations()).isEmpty();
  }

  @Test
  void onlyChangesToWhatIsKeptWakeAReconcile() {
    Pod before = pod();
    Pod restarted =
        new PodBuilder(before)
            .editMetadata()
            .withResourceVersion("8")
            .endMetadata()
            .editStatus()
            .editFirstContainerStatus()
            .withRestartCount(3)
            .endContainerStatus()
            .endStatus()
            .build();
    assertThat(PodSkeleton.changesWhatMatters(restarted, before)).isFalse();
    Pod notReady =
        new PodBuilder(before)
            .editStatus()
            .editFirstCondition()
            .withStatus("False")
            .endCondition()
            .endStatus()
            .build();
    assertThat(PodSkeleton.changesWhatMatters(notReady, before)).isTrue();
    Pod relabeled =
        new PodBuilder(before).editMetadata().addToLabels("tier", "web").endMetadata().build();
    assertThat(PodSkeleton.changesWhatMatters(relabeled, before)).isTrue();
  }
}
