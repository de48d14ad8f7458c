package dev.baton.agent.leadership;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.BatonNames;
import dev.baton.client.PodFacts;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** When the agent anticipates the operator's demotion of its not-ready pod, and when it stops. */
class NotReadyCutTest {

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
    assertThat(NotReadyCut.applies(pod("leader", "0s", false))).isTrue();
    assertThat(NotReadyCut.applies(pod("leader", "0", false))).isTrue();
    assertThat(NotReadyCut.applies(pod("leader", "0ms", false))).isTrue();
  }

  @Test
  void aReadyPodIsNeverCut() {
    assertThat(NotReadyCut.applies(pod("leader", "0s", true))).isFalse();
  }

  @Test
  void aDelayAPauseAnAbsentOrUnknownAnnotationLeaveItToTheOperator() {
    assertThat(NotReadyCut.applies(pod("leader", "10s", false))).isFalse();
    assertThat(NotReadyCut.applies(pod("leader", "1ms", false))).isFalse();
    assertThat(NotReadyCut.applies(pod("leader", "paused", false))).isFalse();
    assertThat(NotReadyCut.applies(pod("leader", null, false))).as("an older operator").isFalse();
    assertThat(NotReadyCut.applies(pod("leader", "-1s", false))).isFalse();
    assertThat(NotReadyCut.applies(pod("leader", "", false))).isFalse();
  }

  @Test
  void aDeletedPodOrNoFactsYetAreNotThisRulesBusiness() {
    assertThat(NotReadyCut.applies(PodFacts.GONE)).isFalse();
    assertThat(NotReadyCut.applies(null)).isFalse();
  }

  @Test
  void aCutEndsOnlyWhenThePodIsSeenLabeledLeaderAndNoLongerCertainToBeDemoted() {
    boolean cut = NotReadyCut.after(false, pod("leader", "0s", false), ROLE);
    assertThat(cut).isTrue();
    // The operator's demotion: not ready, follower, the annotation gone. Still cut: it must not
    // reopen in the moment before the demotion revokes leadership.
    assertThat(NotReadyCut.after(cut, pod("follower", null, false), ROLE)).isTrue();
    assertThat(NotReadyCut.after(cut, pod("follower", null, true), ROLE)).isTrue();
    assertThat(NotReadyCut.after(cut, PodFacts.GONE, ROLE)).isTrue();
    // Ready again and still labeled leader, or the group paused meanwhile: reopen.
    assertThat(NotReadyCut.after(cut, pod("leader", "0s", true), ROLE)).isFalse();
    assertThat(NotReadyCut.after(cut, pod("leader", "paused", false), ROLE)).isFalse();
    assertThat(NotReadyCut.after(cut, pod("leader", "10s", false), ROLE)).isFalse();
  }

  @Test
  void withoutACutNothingButTheRuleStartsOne() {
    assertThat(NotReadyCut.after(false, pod("leader", "10s", false), ROLE)).isFalse();
    assertThat(NotReadyCut.after(false, pod("follower", null, false), ROLE)).isFalse();
    assertThat(NotReadyCut.after(false, pod("leader", "0s", true), ROLE)).isFalse();
  }
}
