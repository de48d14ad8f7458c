package dev.baton.agent.leadership;

import static dev.baton.agent.leadership.DecisionDriver.ROLE;
import static dev.baton.agent.leadership.DecisionDriver.pod;
import static dev.baton.agent.leadership.DecisionDriver.podWith;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.BatonNames;
import dev.baton.client.PodFacts;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The pod as its source last showed it: what a belief grants, what a read or event shows. */
class PodStateTest {

  private static final PodState INITIAL = PodState.initial(0);

  private static Input.Belief leader(long term) {
    return new Input.Belief(true, term, 1_000);
  }

  @Test
  void aBeliefGrantsLeadershipWhenFirstConfirmedOrForANewTermOnly() {
    assertThat(INITIAL.grantedBy(leader(3))).as("a first confirmation").isTrue();
    assertThat(INITIAL.grantedBy(new Input.Belief(false, 3, 0))).isFalse();
    PodState confirmed = INITIAL.believed(leader(3));
    assertThat(confirmed.grantedBy(leader(3))).as("the same term again").isFalse();
    assertThat(confirmed.grantedBy(leader(4))).as("a new term").isTrue();
    assertThat(confirmed.grantedBy(new Input.Belief(false, 4, 0))).isFalse();
  }

  @Test
  void theNewestTermCountsOnlyFromAPodLabeledLeaderWithATermItCanRead() {
    PodState shown = INITIAL.seen(pod(BatonNames.LEADER, 7L, null), ROLE);
    assertThat(shown.newestTerm()).isEqualTo(7);
    assertThat(shown.seen(pod(BatonNames.FOLLOWER, 9L, null), ROLE).newestTerm())
        .as("a term beside another role")
        .isEqualTo(7);
    PodFacts malformed =
        podWith(BatonNames.LEADER, Map.of(BatonNames.TERM_ANNOTATION, "nine"), null);
    assertThat(INITIAL.seen(malformed, ROLE).newestTerm()).isZero();
    assertThat(INITIAL.seen(pod(BatonNames.LEADER, null, null), ROLE).newestTerm()).isZero();

    // A belief in an older term than the pod was shown leads nothing; the shown term does.
    assertThat(shown.believed(leader(5)).mayLead()).isFalse();
    assertThat(shown.believed(leader(7)).mayLead()).isTrue();
  }

  @Test
  void aDeletedPodKeepsItsGroupUidAndAddressButNeverItsLeaderLabel() {
    PodState seen = INITIAL.seen(pod(BatonNames.LEADER, 3L, "10.0.0.5"), ROLE);
    PodState gone = seen.seen(PodFacts.GONE, ROLE);
    assertThat(gone.facts().exists()).isFalse();
    assertThat(gone.facts().labels()).isEmpty();
    assertThat(gone.facts().uid()).isEqualTo("u");
    assertThat(gone.group()).isEqualTo("g");
    assertThat(gone.ip()).isEqualTo("10.0.0.5");

    assertThat(INITIAL.seen(PodFacts.GONE, ROLE).facts())
        .as("gone at its first read: nothing to keep")
        .isEqualTo(PodFacts.GONE);
    PodFacts moved =
        podWith(BatonNames.FOLLOWER, Map.of(BatonNames.GROUP_ANNOTATION, "h"), "10.0.0.6");
    assertThat(seen.seen(moved, ROLE).facts()).as("a pod that exists: as seen").isEqualTo(moved);
  }

  @Test
  void itsAddressIsThePodsAsLastSeenAndNoneBeforeAnyRead() {
    assertThat(INITIAL.ip()).isNull();
    assertThat(INITIAL.seen(pod(BatonNames.FOLLOWER, null, null), ROLE).ip()).isNull();
    assertThat(INITIAL.seen(pod(BatonNames.FOLLOWER, null, "10.0.0.5"), ROLE).ip())
        .isEqualTo("10.0.0.5");
  }
}
