package dev.baton.agent.leadership;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.agent.leadership.LeadRule.Facts;
import org.junit.jupiter.api.Test;

/** The rule alone: every condition that shuts a gate, and the deadline an open one gets. */
class LeadRuleTest {

  private static final long NOW = 1_000_000_000L;
  private static final long TTL = 2_000_000_000L;

  private static Hold proven(long until) {
    return new Hold("k", "v", 7, true, NOW - TTL, until, NOW - 1);
  }

  private static Facts facts(boolean confirmed, long confirmedUntil, boolean cut, Hold hold) {
    return new Facts(confirmed, 7, confirmedUntil, cut, false, true, hold);
  }

  @Test
  void openUntilTheEarlierOfTheHoldsAndTheConfirmationsDeadline() {
    assertThat(LeadRule.openUntil(facts(true, NOW + 500, false, proven(NOW + 900)), NOW))
        .hasValue(NOW + 500);
    assertThat(LeadRule.openUntil(facts(true, NOW + 900, false, proven(NOW + 500)), NOW))
        .hasValue(NOW + 500);
  }

  @Test
  void aRenewalTakesAnAbsentKeyAgainOnlyWhenSentBeforeItsDeadline() {
    var renew = new HoldCall.Renew(proven(NOW + 900), "again", NOW + 500, false);
    assertThat(renew.mayRetakeIfSentAt(NOW + 499)).isTrue();
    assertThat(renew.mayRetakeIfSentAt(NOW + 500)).as("sent at the deadline").isFalse();
    assertThat(new HoldCall.Renew(proven(NOW + 900), null, NOW + 500, false).mayRetakeIfSentAt(NOW))
        .as("no name to take it under")
        .isFalse();
    assertThat(
            new HoldCall.Renew(proven(NOW + 900), "again", Long.MIN_VALUE, false)
                .mayRetakeIfSentAt(NOW))
        .as("a shut gate's renewal never takes it again")
        .isFalse();
  }

  @Test
  void shutPastEitherDeadline() {
    assertThat(LeadRule.openUntil(facts(true, NOW + 900, false, proven(NOW)), NOW)).isEmpty();
    assertThat(LeadRule.openUntil(facts(true, NOW, false, proven(NOW + 900)), NOW)).isEmpty();
  }

  @Test
  void shutWithoutConfirmationOrWhenCutOrClosing() {
    Hold h = proven(NOW + 900);
    assertThat(LeadRule.openUntil(facts(false, NOW + 900, false, h), NOW)).isEmpty();
    assertThat(LeadRule.openUntil(facts(true, NOW + 900, true, h), NOW)).isEmpty();
    assertThat(LeadRule.openUntil(new Facts(true, 7, NOW + 900, false, true, true, h), NOW))
        .isEmpty();
  }

  @Test
  void withRedisShutWithoutAProvenHoldOfTheSameTerm() {
    assertThat(LeadRule.openUntil(facts(true, NOW + 900, false, null), NOW)).isEmpty();
    Hold waiting = new Hold("k", "v", 7, false, NOW + TTL, NOW + 900, NOW);
    assertThat(LeadRule.openUntil(facts(true, NOW + 900, false, waiting), NOW))
        .as("taken from an absent key: not before a whole ttl")
        .isEmpty();
    Hold older = new Hold("k", "v", 6, true, NOW, NOW + 900, NOW);
    assertThat(LeadRule.openUntil(facts(true, NOW + 900, false, older), NOW)).isEmpty();
  }

  @Test
  void aWaitingHoldIsProvenOnlyByARenewalSentOnceItsTtlIsOver() {
    Hold waiting = new Hold("k", "v", 7, false, NOW + TTL, NOW + 900, NOW);
    assertThat(waiting.renewed(NOW + TTL - 1, TTL).proven()).isFalse();
    Hold proven = waiting.renewed(NOW + TTL, TTL);
    assertThat(proven.proven()).isTrue();
    assertThat(proven.untilNanos()).isEqualTo(NOW + 2 * TTL);
  }

  @Test
  void withoutRedisTheConfirmationAloneDecides() {
    Facts noKey = new Facts(true, 7, NOW + 900, false, false, false, null);
    assertThat(LeadRule.openUntil(noKey, NOW)).hasValue(NOW + 900);
  }
}
