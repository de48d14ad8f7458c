package dev.baton.operator.pods;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.BatonNames;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CandidateTest {

  private static Pod annotated(String value) {
    return new PodBuilder(Sandbox.readyPod("shop", "payments-0", Map.of("app", "payments")))
        .editMetadata()
        .addToAnnotations(BatonNames.CANDIDATE_ANNOTATION, value)
        .endMetadata()
        .build();
  }

  @Test
  void candidateFalseOptsAReadyPodOutOfElectionsOnly() {
    Candidate c = Candidate.of(annotated("false"), "baton.dev/role", node -> false);
    assertThat(c.eligible()).isFalse();
    assertThat(c.notEligibleBecause()).isEqualTo(Candidate.Ineligibility.OPTED_OUT);

    assertThat(Candidate.of(annotated("true"), "baton.dev/role", node -> false).eligible())
        .isTrue();
    assertThat(Candidate.of(annotated("false"), "baton.dev/role").eligible())
        .as("a lock's holder: the annotation is about elections")
        .isTrue();
  }

  /**
   * A pod labeled for the agent and running without it is never elected, seen through the two forms
   * the pod cache keeps it in (a skeleton, and a compact copy turned back into one), which must
   * keep the agent container, its image and the pod's service account.
   */
  @Test
  void aPodAskingForTheAgentWithoutItIsNeverElectedInEitherCachedForm() {
    Pod bare =
        new PodBuilder(
                Sandbox.readyPod(
                    "shop", "orders-0", Map.of("app", "orders", "baton.dev/agent", "relay")))
            .editSpec()
            .withServiceAccountName("orders")
            .endSpec()
            .build();
    Pod injected =
        new PodBuilder(bare)
            .editSpec()
            .addNewInitContainer()
            .withName("baton-agent")
            .withImage("ghcr.io/baton-dev/baton-operator:0.2.0")
            .withRestartPolicy("Always")
            .addNewPort()
            .withContainerPort(8080)
            .endPort()
            .endInitContainer()
            .endSpec()
            .build();

    for (Pod cached :
        new Pod[] {
          PodSkeleton.of(injected),
          CompactPod.of(PodSkeleton.of(injected)).toPod("shop", "orders-0")
        }) {
      assertThat(Candidate.of(cached, "baton.dev/role", node -> false).eligible()).isTrue();
      assertThat(Candidate.agentImage(cached)).isEqualTo("ghcr.io/baton-dev/baton-operator:0.2.0");
      assertThat(cached.getSpec().getServiceAccountName()).isEqualTo("orders");
      assertThat(cached.getSpec().getInitContainers().get(0).getPorts())
          .as("a native sidecar's ports resolve no named targetPort before 1.33: not kept")
          .isNullOrEmpty();
    }
    for (Pod cached :
        new Pod[] {
          PodSkeleton.of(bare), CompactPod.of(PodSkeleton.of(bare)).toPod("shop", "orders-0")
        }) {
      Candidate c = Candidate.of(cached, "baton.dev/role", node -> false);
      assertThat(c.eligible()).isFalse();
      assertThat(c.notEligibleBecause()).isEqualTo(Candidate.Ineligibility.AGENT_MISSING);
    }
    assertThat(
            Candidate.of(
                    PodSkeleton.of(Sandbox.readyPod("shop", "p", Map.of("app", "orders"))),
                    "baton.dev/role",
                    node -> false)
                .eligible())
        .as("no label, no agent asked for")
        .isTrue();
  }
}
