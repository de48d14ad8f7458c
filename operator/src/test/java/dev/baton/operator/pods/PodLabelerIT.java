package dev.baton.operator.pods;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.BatonNames;
import dev.baton.testkit.EmbeddedKubernetes;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The role write against the embedded API, which refuses a JSON patch that adds under a missing map
 * (422) as a real API server does: on a real node, the write that followed a conflict on a pod
 * without annotations failed five times in a row and lost the reconcile's report.
 */
class PodLabelerIT {

  private final EmbeddedKubernetes api = EmbeddedKubernetes.start();
  private final KubernetesClient client = api.client();
  private final PodLabeler labeler = new PodLabeler(client);

  @AfterEach
  void stop() {
    api.close();
  }

  private Pod createBarePod() {
    return client
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .withNamespace("shop")
                .endMetadata()
                .build())
        .create();
  }

  /** The pod the tests write, p in shop, as it is now. */
  private Pod thePod() {
    return client.pods().inNamespace("shop").withName("p").get();
  }

  /** Someone else's write of the pod. */
  private void editThePod(UnaryOperator<Pod> edit) {
    client.pods().inNamespace("shop").withName("p").edit(edit);
  }

  private static PodLabeler.Role leader(long term) {
    return new PodLabeler.Role(
        "baton.dev/role", "g", true, term, "2026-12-04T00:00:00Z", true, "0s");
  }

  @Test
  void aPodWithoutLabelsOrAnnotationsIsPromotedAfterAConflict() {
    Pod seen = createBarePod();
    // Someone else writes the pod (not its maps) after the view was taken: the write conflicts,
    // and the pod read again still has no labels and no annotations.
    editThePod(
        p -> new PodBuilder(p).withNewSpec().withActiveDeadlineSeconds(60L).endSpec().build());
    assertThat(labeler.apply(seen, leader(7))).isTrue();

    Pod now = thePod();
    assertThat(now.getMetadata().getLabels()).containsEntry("baton.dev/role", "leader");
    assertThat(now.getMetadata().getAnnotations())
        .containsEntry(BatonNames.TERM_ANNOTATION, "7")
        .containsEntry(BatonNames.GROUP_ANNOTATION, "g");
  }

  @Test
  void aDemotionRemovesTheLeadersMarksAndKeepsEveryoneElses() {
    Pod seen = createBarePod();
    labeler.apply(seen, leader(3));
    editThePod(
        p -> {
          p.getMetadata().getLabels().put("app", "x");
          p.getMetadata().getAnnotations().put("note", "kept");
          return p;
        });
    labeler.apply(thePod(), new PodLabeler.Role("baton.dev/role", "g", false, 0, null, true, null));

    Pod now = thePod();
    assertThat(now.getMetadata().getLabels())
        .containsEntry("baton.dev/role", "follower")
        .containsEntry("app", "x");
    assertThat(now.getMetadata().getAnnotations())
        .containsEntry("note", "kept")
        .doesNotContainKeys(
            BatonNames.TERM_ANNOTATION,
            BatonNames.LEADER_SINCE_ANNOTATION,
            BatonNames.DELETION_COST_ANNOTATION,
            BatonNames.FAILOVER_DELAY_ANNOTATION);
  }

  @Test
  void aDemotionLandsInOneWriteOnAPodThatChangedSinceItWasSeenAndLeavesTheDeletionCost() {
    labeler.apply(createBarePod(), leader(4));
    // The pod changes after the operator saw it, as a terminating pod's kubelet reports its
    // containers stopping: a guarded write would be refused with 409 and cost a read and a resend.
    editThePod(
        p -> {
          p.getMetadata().getAnnotations().put("note", "kept");
          return p;
        });
    AtomicInteger sent = new AtomicInteger();

    labeler.demote(
        "shop",
        "p",
        new PodLabeler.Role("baton.dev/role", "g", false, 0, null, true, null),
        sent::incrementAndGet);

    assertThat(sent).hasValue(1);
    Pod now = thePod();
    assertThat(now.getMetadata().getLabels()).containsEntry("baton.dev/role", "follower");
    assertThat(now.getMetadata().getAnnotations())
        .containsEntry("note", "kept")
        .containsEntry(BatonNames.GROUP_ANNOTATION, "g")
        // A key users may write too: left to the next guarded write of the follower marks.
        .containsEntry(BatonNames.DELETION_COST_ANNOTATION, BatonNames.LEADER_DELETION_COST)
        .doesNotContainKeys(
            BatonNames.TERM_ANNOTATION,
            BatonNames.LEADER_SINCE_ANNOTATION,
            BatonNames.FAILOVER_DELAY_ANNOTATION);

    // A pod that is gone is demoted already.
    labeler.demote(
        "shop",
        "gone",
        new PodLabeler.Role("baton.dev/role", "g", false, 0, null, true, null),
        sent::incrementAndGet);
    assertThat(client.pods().inNamespace("shop").withName("gone").get()).isNull();
  }
}
