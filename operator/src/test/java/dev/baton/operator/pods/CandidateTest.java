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
}
