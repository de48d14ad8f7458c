package dev.baton.agent.leadership;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.BatonNames;
import dev.baton.client.PodFacts;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When the agent anticipates the operator's demotion of its not-ready pod, and when it stops. */
class CertainDemotionTest {

  private static final String ROLE = "baton.dev/role";

  private static PodFacts pod(String role, String failoverDelay, boolean ready) {
    Map<String, String> annotations = new HashMap<>();
    if (failoverDelay != null) {
      annotations.put(BatonNames.FAILOVER_DELAY_ANNOTATION, failoverDelay);
    }
    Map<String, String> labels = role == null ? Map.of() : Map.of(ROLE, role);
    return new PodFacts(true, "uid-1", labels, annotations, ready);
  }

  @Test
  void aNotReadyLeaderWhoseGroupFailsOverAtOnceIsCut() {
    assertThat(CertainDemotion.applies(pod("leader", "0s", false))).isTrue();
    assertThat(CertainDemotion.applies(pod("leader", "0", false))).isTrue();
    assertThat(CertainDemotion.applies(pod("leader", "0ms", false))).isTrue();
  }

  @Test
  void aReadyPodIsNeverCut() {
    assertThat(CertainDemotion.applies(pod("leader", "0s", true))).isFalse();
  }

  @Test
  void aDelayAPauseAnAbsentOrUnknownAnnotationLeaveItToTheOperator() {
    assertThat(CertainDemotion.applies(pod("leader", "10s", false))).isFalse();
    assertThat(CertainDemotion.applies(pod("leader", "1ms", false))).isFalse();
    assertThat(CertainDemotion.applies(pod("leader", "paused", false))).isFalse();
    assertThat(CertainDemotion.applies(pod("leader", null, false)))
        .as("an older operator")
        .isFalse();
    assertThat(CertainDemotion.applies(pod("leader", "-1s", false))).isFalse();
    assertThat(CertainDemotion.applies(pod("leader", "", false))).isFalse();
  }

  @Test
  void aDeletedPodOrNoFactsYetAreNotThisRulesBusiness() {
    assertThat(CertainDemotion.applies(PodFacts.GONE)).isFalse();
    assertThat(CertainDemotion.applies(null)).isFalse();
  }

  @Test
  void aCutEndsOnlyWhenThePodIsSeenLabeledLeaderAndNoLongerCertainToBeDemoted() {
    boolean cut = CertainDemotion.after(false, pod("leader", "0s", false), ROLE);
    assertThat(cut).isTrue();
    // The operator's demotion: not ready, follower, the annotation gone. Still cut: it must not
    // reopen in the moment before the demotion revokes leadership.
    assertThat(CertainDemotion.after(cut, pod("follower", null, false), ROLE)).isTrue();
    assertThat(CertainDemotion.after(cut, pod("follower", null, true), ROLE)).isTrue();
    assertThat(CertainDemotion.after(cut, PodFacts.GONE, ROLE)).isTrue();
    // Ready again and still labeled leader, or the group paused meanwhile: reopen.
    assertThat(CertainDemotion.after(cut, pod("leader", "0s", true), ROLE)).isFalse();
    assertThat(CertainDemotion.after(cut, pod("leader", "paused", false), ROLE)).isFalse();
    assertThat(CertainDemotion.after(cut, pod("leader", "10s", false), ROLE)).isFalse();
  }

  @Test
  void withoutACutNothingButTheRuleStartsOne() {
    assertThat(CertainDemotion.after(false, pod("leader", "10s", false), ROLE)).isFalse();
    assertThat(CertainDemotion.after(false, pod("follower", null, false), ROLE)).isFalse();
    assertThat(CertainDemotion.after(false, pod("leader", "0s", true), ROLE)).isFalse();
  }

  @Test
  void aTerminatingPodIsCutReadyOrNot() {
    PodFacts ready = pod("leader", "10s", true);
    assertThat(
            CertainDemotion.applies(
                new PodFacts(true, "uid-1", ready.labels(), ready.annotations(), true, null, true)))
        .isTrue();
  }
}
