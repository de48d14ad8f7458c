package dev.baton.agent.leadership;

import static dev.baton.agent.leadership.GateModel.MS;
import static dev.baton.agent.leadership.GateModel.TTL;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.agent.leadership.GateModel.Budget;
import org.junit.jupiter.api.Test;

/**
 * What the exhaustive search cannot see: it checks that nothing unsafe ever happens, and a gate
 * that never opens is safe. These walks through the same model, every call answered and every
 * message delivered, check that the gates do open, and when: a leader that renews stays open, a
 * hand-over opens its successor at once, a dead holder's successor opens after one confirmWithin
 * and not before, a key lost under its leader is taken again without a break.
 */
class GateModelProgressTest {

  private static final Budget ENOUGH = new Budget(9, 9, 9, 9, 9, 9, 9, 999);
  private static final long STEP = TTL / 20; // 100 ms

  private static GateModel step(GateModel w) {
    return GateModelTest.settle(GateModelAgents.advance(w, w.now() + STEP));
  }

  /**
   * How long after {@code w} agent {@code i}'s gates first forward, step by step; -1: not in 6 s.
   */
  private static long opensAfter(GateModel w, int i) {
    long from = w.now();
    for (int k = 0; k < 60; k++) {
      w = step(w);
      if (w.forwarding().contains(i)) {
        return w.now() - from;
      }
    }
    return -1;
  }

  @Test
  void aLeaderThatRenewsStaysOpenForAsLongAsItLeads() {
    GateModel w = GateModelTest.leading(2, ENOUGH);
    for (int i = 0; i < 100; i++) {
      w = step(w);
      assertThat(w.forwarding()).as("after %d ms", (i + 1) * STEP / MS).containsExactly(0);
    }
  }

  @Test
  void aHandOverOpensTheSuccessorWithinOneStep() {
    GateModel w = GateModelTest.leading(2, ENOUGH);
    w = GateModelTest.settle(GateModelOperator.demote(w));
    assertThat(w.forwarding()).as("the old leader closed at its demotion").isEmpty();
    w = GateModelTest.settle(GateModelOperator.promote(w, 1));
    w = step(w);
    assertThat(w.forwarding()).as("a released key is taken and proven at once").containsExactly(1);
    for (int i = 0; i < 40; i++) {
      w = step(w);
      assertThat(w.forwarding()).containsExactly(1);
    }
  }

  @Test
  void aDeadHoldersSuccessorOpensAfterOneConfirmWithinAndNotBefore() {
    GateModel w = GateModelTest.leading(2, ENOUGH);
    w = GateModelAgents.pause(w, 0); // never runs again: its hold goes stale
    w = GateModelTest.settle(GateModelOperator.demote(w));
    w = GateModelTest.settle(GateModelOperator.promote(w, 1));
    long opened = opensAfter(w, 1);
    assertThat(opened).as("the successor opened").isNotNegative();
    assertThat(opened / MS)
        .as("ms from the promotion to the successor's gate")
        .isBetween(TTL / MS - STEP / MS, 2 * TTL / MS + STEP / MS);
  }

  @Test
  void aSuccessorOnAKeyLostUnderAStalledLeaderOpensOnlyAfterHoldingItAWholeConfirmWithin() {
    GateModel w = GateModelTest.leading(2, ENOUGH);
    w = GateModelAgents.pause(w, 0); // open, and stalled: its hold runs out by its own clock
    w = GateModelTest.settle(GateModelRedis.deleteKey(w));
    w = GateModelTest.settle(GateModelOperator.demote(w));
    w = GateModelTest.settle(GateModelOperator.promote(w, 1));
    assertThat(w.redis().value()).as("taken while absent").startsWith("A ");
    long opened = opensAfter(w, 1);
    assertThat(opened).as("the successor opened").isNotNegative();
    assertThat(opened).as("held a whole confirmWithin first").isGreaterThanOrEqualTo(TTL);
  }

  @Test
  void aKeyLostUnderItsLeaderIsTakenAgainWithoutABreak() {
    GateModel w = GateModelTest.leading(2, ENOUGH);
    w = GateModelTest.settle(GateModelRedis.deleteKey(w));
    for (int i = 0; i < 60; i++) {
      w = step(w);
      assertThat(w.forwarding()).as("after %d ms", (i + 1) * STEP / MS).containsExactly(0);
    }
    assertThat(w.redis().value()).as("taken again by a renewal").isNotNull();
  }

  @Test
  void aNewTermForTheSameLeaderReopensItsGatesWithinAStep() {
    GateModel w = GateModelTest.leading(2, ENOUGH);
    w = GateModelTest.settle(GateModelOperator.reterm(w));
    w = step(w);
    w = step(w);
    assertThat(w.forwarding()).containsExactly(0);
    assertThat(w.agents().get(0).state().key().hold().term()).isEqualTo(w.termCounter());
  }
}
