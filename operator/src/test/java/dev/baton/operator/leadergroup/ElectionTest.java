package dev.baton.operator.leadergroup;

import static dev.baton.operator.leadergroup.Election.Action.ELECT;
import static dev.baton.operator.leadergroup.Election.Action.KEEP;
import static dev.baton.operator.leadergroup.Election.Action.RELEASE;
import static dev.baton.operator.leadergroup.Election.Action.STAND_ASIDE;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.HolderRecord;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.leadergroup.Election.Decision;
import dev.baton.operator.leadergroup.Election.Holder;
import dev.baton.operator.leadergroup.Election.SwitchoverOutcome;
import dev.baton.operator.pods.Candidate;
import dev.baton.operator.pods.Candidate.Ineligibility;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ElectionTest {

  private static final String NS = "shop";
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

  private static Candidate pod(String name, int ageRank, boolean ready) {
    return new Candidate(
        name,
        "uid-" + name,
        ready,
        ready ? Ineligibility.NONE : Ineligibility.NOT_READY,
        T0.plusSeconds(ageRank),
        0,
        false);
  }

  private static Candidate labeled(Candidate c) {
    return new Candidate(
        c.name(), c.uid(), c.eligible(), c.notEligibleBecause(), c.created(), c.priority(), true);
  }

  private static Candidate priority(Candidate c, int p) {
    return new Candidate(
        c.name(), c.uid(), c.eligible(), c.notEligibleBecause(), c.created(), p, c.labeledLeader());
  }

  private static Candidate terminating(Candidate c) {
    return new Candidate(
        c.name(),
        c.uid(),
        false,
        Ineligibility.TERMINATING,
        c.created(),
        c.priority(),
        c.labeledLeader());
  }

  private static Holder ours(Candidate c, long term) {
    HolderRecord r = new HolderRecord("default", NS, c.name(), c.uid(), term);
    return new Holder.Ours(r, r.encode());
  }

  private static Decision decide(List<Candidate> pods, Holder holder) {
    return Election.decide(pods, holder, null, NS);
  }

  @Test
  void freeLeaseGoesToTheOldestReadyPodWithReasonInitial() {
    var a = pod("a", 2, true);
    var b = pod("b", 1, true);
    var c = pod("c", 0, false);
    Decision d = decide(List.of(a, b, c), new Holder.Free());
    assertThat(d.action()).isEqualTo(ELECT);
    assertThat(d.leader()).isEqualTo(b);
    assertThat(d.reason()).isEqualTo(EventReason.Initial);
  }

  @Test
  void higherPriorityBeatsAge() {
    var a = pod("a", 0, true);
    var b = priority(pod("b", 5, true), 10);
    assertThat(decide(List.of(a, b), new Holder.Free()).leader()).isEqualTo(b);
  }

  @Test
  void nameBreaksTiesBetweenPodsOfTheSameAgeAndPriority() {
    var b = pod("b", 0, true);
    var a = pod("a", 0, true);
    assertThat(decide(List.of(b, a), new Holder.Free()).leader()).isEqualTo(a);
  }

  @Test
  void freeLeaseGoesBackToTheLabeledLeaderWhenItIsReady() {
    var a = pod("a", 0, true);
    var b = labeled(pod("b", 1, true));
    Decision d = decide(List.of(a, b), new Holder.Free());
    assertThat(d.leader()).isEqualTo(b);
    assertThat(d.reason()).isEqualTo(EventReason.LeaseExpired);
  }

  @Test
  void freeLeaseSkipsALabeledLeaderThatIsNotReady() {
    var a = pod("a", 1, true);
    var b = labeled(pod("b", 0, false));
    assertThat(decide(List.of(a, b), new Holder.Free()).leader()).isEqualTo(a);
  }

  @Test
  void readyHolderKeepsLeadingEvenWhenAnOlderOrHigherPriorityPodIsReady() {
    var old = priority(pod("old", 0, true), 100);
    var holder = pod("young", 9, true);
    Decision d = decide(List.of(old, holder), ours(holder, 7));
    assertThat(d.action()).isEqualTo(KEEP);
    assertThat(d.leader()).isEqualTo(holder);
  }

  @Test
  void goneHolderIsReplacedWithReasonLeaderDeleted() {
    var a = pod("a", 0, true);
    var gone = pod("gone", 0, true);
    Decision d = decide(List.of(a), ours(gone, 3));
    assertThat(d.action()).isEqualTo(ELECT);
    assertThat(d.leader()).isEqualTo(a);
    assertThat(d.reason()).isEqualTo(EventReason.LeaderDeleted);
  }

  @Test
  void notReadyHolderIsReplacedWithReasonLeaderNotReady() {
    assertReplacedBy(pod("h", 0, false), EventReason.LeaderNotReady);
  }

  @Test
  void terminatingHolderIsReplacedWithReasonLeaderTerminating() {
    assertReplacedBy(terminating(pod("h", 0, true)), EventReason.LeaderTerminating);
  }

  @Test
  void holderOnALostNodeIsReplacedWithReasonLeaderNodeLost() {
    var h = pod("h", 0, true);
    var holder =
        new Candidate(h.name(), h.uid(), false, Ineligibility.NODE_LOST, h.created(), 0, true);
    assertReplacedBy(holder, EventReason.LeaderNodeLost);
  }

  @Test
  void anOptedOutHolderIsSwitchedAwayFromAtOnceAndAnOptedOutPodIsNeverElected() {
    var h = pod("h", 0, true);
    var holder =
        new Candidate(h.name(), h.uid(), false, Ineligibility.OPTED_OUT, h.created(), 0, true);
    var older = pod("older", -1, true);
    var optedOutOlder =
        new Candidate(
            older.name(), older.uid(), false, Ineligibility.OPTED_OUT, older.created(), 9, false);
    var a = pod("a", 1, true);

    Decision d = decide(List.of(holder, optedOutOlder, a), ours(holder, 3));
    assertThat(d.action()).isEqualTo(ELECT);
    assertThat(d.leader()).isEqualTo(a);
    assertThat(d.reason()).isEqualTo(EventReason.LeaderOptedOut);
    assertThat(decide(List.of(optedOutOlder, a), new Holder.Free()).leader()).isEqualTo(a);
    assertThat(decide(List.of(holder, optedOutOlder), ours(holder, 3)).action())
        .as("nobody else may lead")
        .isEqualTo(RELEASE);
  }

  @Test
  void noReadyCandidateReleasesWhetherOrNotSomeoneHolds() {
    var a = pod("a", 0, false);
    assertThat(decide(List.of(a), ours(a, 1)).action()).isEqualTo(RELEASE);
    assertThat(decide(List.of(a), new Holder.Free()).action()).isEqualTo(RELEASE);
    assertThat(decide(List.of(), new Holder.Free()).reason()).isEqualTo(EventReason.NoCandidates);
  }

  @Test
  void foreignHolderIsLeftAloneAndOurPodsStandAside() {
    var a = pod("a", 0, true);
    Decision d = decide(List.of(a), new Holder.Foreign("other|shop|x|uid|9"));
    assertThat(d.action()).isEqualTo(STAND_ASIDE);
    assertThat(d.leader()).isNull();
  }

  @Test
  void ourRecordForAnotherNamespaceIsForeign() {
    var a = pod("a", 0, true);
    HolderRecord r = new HolderRecord("default", "elsewhere", "a", "uid-a", 2);
    assertThat(decide(List.of(a), new Holder.Ours(r, r.encode())).action()).isEqualTo(STAND_ASIDE);
  }

  @Test
  void switchoverToAReadyPodElectsIt() {
    var holder = pod("h", 0, true);
    var target = pod("t", 5, true);
    Decision d = Election.decide(List.of(holder, target), ours(holder, 2), "t", NS);
    assertThat(d.action()).isEqualTo(ELECT);
    assertThat(d.leader()).isEqualTo(target);
    assertThat(d.reason()).isEqualTo(EventReason.Switchover);
    assertThat(d.switchover()).isEqualTo(SwitchoverOutcome.DONE);
  }

  @Test
  void switchoverToTheCurrentLeaderIsDoneWithoutAnElection() {
    var holder = pod("h", 0, true);
    Decision d = Election.decide(List.of(holder), ours(holder, 2), "h", NS);
    assertThat(d.action()).isEqualTo(KEEP);
    assertThat(d.switchover()).isEqualTo(SwitchoverOutcome.DONE);
  }

  @Test
  void switchoverToAMissingOrUnreadyPodIsRefusedAndTheLeaderStays() {
    var holder = pod("h", 0, true);
    var sick = pod("sick", 1, false);
    for (String target : List.of("missing", "sick")) {
      Decision d = Election.decide(List.of(holder, sick), ours(holder, 2), target, NS);
      assertThat(d.action()).isEqualTo(KEEP);
      assertThat(d.leader()).isEqualTo(holder);
      assertThat(d.switchover()).isEqualTo(SwitchoverOutcome.REFUSED);
      assertThat(d.switchoverMessage()).contains(target);
    }
  }

  @Test
  void refusedSwitchoverStillReplacesAGoneLeader() {
    var a = pod("a", 0, true);
    Decision d = Election.decide(List.of(a), ours(pod("gone", 0, true), 2), "missing", NS);
    assertThat(d.action()).isEqualTo(ELECT);
    assertThat(d.leader()).isEqualTo(a);
    assertThat(d.switchover()).isEqualTo(SwitchoverOutcome.REFUSED);
  }

  /** Over many random worlds: the decision never picks an ineligible pod and is order-free. */
  @Test
  void decisionsAreDeterministicAndOnlyEverElectReadyPods() {
    Random random = new Random(42);
    for (int world = 0; world < 5_000; world++) {
      List<Candidate> pods = new ArrayList<>();
      int n = random.nextInt(5);
      for (int i = 0; i < n; i++) {
        Candidate c = pod("p" + i, random.nextInt(3), random.nextBoolean());
        if (random.nextInt(4) == 0) {
          c = priority(c, random.nextInt(3));
        }
        if (random.nextInt(5) == 0) {
          c = terminating(c);
        }
        if (random.nextInt(4) == 0) {
          c = labeled(c);
        }
        pods.add(c);
      }
      Holder holder =
          switch (random.nextInt(3)) {
            case 0 -> new Holder.Free();
            case 1 ->
                ours(
                    n > 0 && random.nextBoolean()
                        ? pods.get(random.nextInt(n))
                        : pod("gone", 0, true),
                    1 + random.nextInt(5));
            default -> new Holder.Foreign("x");
          };
      String switchover = random.nextInt(4) == 0 ? "p" + random.nextInt(6) : null;
      Decision d = Election.decide(pods, holder, switchover, NS);
      List<Candidate> shuffled = new ArrayList<>(pods);
      Collections.shuffle(shuffled, random);
      assertThat(Election.decide(shuffled, holder, switchover, NS)).isEqualTo(d);
      if (d.leader() != null) {
        assertThat(d.leader().eligible()).as("world %d: %s", world, d).isTrue();
      }
      boolean anyEligible = pods.stream().anyMatch(Candidate::eligible);
      if (!(holder instanceof Holder.Foreign)) {
        assertThat(d.leader() != null).as("world %d: %s", world, d).isEqualTo(anyEligible);
      }
    }
  }

  @Test
  void failoverDelayKeepsOnlyANotReadyHolderAndOnlyUntilItsDeadline() {
    var a = pod("a", 0, false);
    var b = pod("b", 1, true);
    Holder holder = ours(a, 4);
    java.time.Duration delay = java.time.Duration.ofSeconds(5);

    var first = FailoverDamping.judge(delay, List.of(a, b), holder, null, null, T0);
    assertThat(first.keepHolder()).isTrue();
    assertThat(first.pending().failoverAt()).isEqualTo(T0.plusSeconds(5));
    assertThat(Election.decide(List.of(a, b), holder, null, NS, first.keepHolder()).action())
        .isEqualTo(KEEP);
    // The clock runs from the first sight, not from each look.
    var later =
        FailoverDamping.judge(
            delay, List.of(a, b), holder, null, first.pending(), T0.plusSeconds(4));
    assertThat(later.pending().notReadySince()).isEqualTo(T0);
    var due =
        FailoverDamping.judge(
            delay, List.of(a, b), holder, null, later.pending(), T0.plusSeconds(5));
    assertThat(due.keepHolder()).isFalse();
    Decision moved = Election.decide(List.of(a, b), holder, null, NS, due.keepHolder());
    assertThat(moved.action()).isEqualTo(ELECT);
    assertThat(moved.leader().name()).isEqualTo("b");

    // Terminating is never damped, nor is a zero delay.
    assertThat(
            FailoverDamping.judge(delay, List.of(terminating(a), b), holder, null, null, T0)
                .keepHolder())
        .isFalse();
    assertThat(Election.decide(List.of(terminating(a), b), holder, null, NS, true).action())
        .isEqualTo(ELECT);
    assertThat(
            FailoverDamping.judge(java.time.Duration.ZERO, List.of(a, b), holder, null, null, T0)
                .keepHolder())
        .isFalse();
  }

  @Test
  void aHolderReadyAgainEndsThePendingFailoverAsAverted() {
    var sick = pod("a", 0, false);
    var well = pod("a", 0, true);
    var b = pod("b", 1, true);
    java.time.Duration delay = java.time.Duration.ofSeconds(5);
    var pending = FailoverDamping.judge(delay, List.of(sick, b), ours(sick, 1), null, null, T0);
    var back =
        FailoverDamping.judge(
            delay, List.of(well, b), ours(well, 1), null, pending.pending(), T0.plusSeconds(1));
    assertThat(back.keepHolder()).isFalse();
    assertThat(back.averted()).isEqualTo("a");
    assertThat(back.pending()).isNull();
  }

  /** The holder, older than a ready pod a, loses the lease to a, for {@code reason}. */
  private static void assertReplacedBy(Candidate holder, EventReason reason) {
    var a = pod("a", 1, true);
    Decision d = decide(List.of(holder, a), ours(holder, 3));
    assertThat(d.leader()).isEqualTo(a);
    assertThat(d.reason()).isEqualTo(reason);
  }
}
