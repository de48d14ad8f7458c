package dev.baton.agent.leadership;

import static dev.baton.agent.leadership.DecisionDriver.KEY;
import static dev.baton.agent.leadership.DecisionDriver.MARGIN;
import static dev.baton.agent.leadership.DecisionDriver.MS;
import static dev.baton.agent.leadership.DecisionDriver.TTL;
import static dev.baton.agent.leadership.DecisionDriver.pod;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.BatonNames;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What the hold key's answers mean, answer by answer: let-goes, absent keys, refusals for a newer
 * term, lost takes found in the key, and a renewal that took a lost key again.
 */
class HoldAnswersTest {

  private final DecisionDriver d = new DecisionDriver();
  private long renewSentAt;

  private static String value(char state, long term, String incarnation, String hold) {
    return new HoldValue(state, term, 1, incarnation, hold).raw();
  }

  @Test
  void aLetGoRedisDidNotAnswerIsWarnedOfAndOneItAnsweredIsNot() {
    d.leading(3);
    d.feed(new Input.Belief(false, 3, d.now));
    HoldCall.LetGo letGo = d.last(HoldCall.LetGo.class);
    AgentState after = d.state;
    assertThat(d.answer(letGo, d.now, null)).singleElement().matches(e -> ((Effect.Log) e).warn());
    assertThat(d.answer(letGo, 1, "")).isEmpty();
    assertThat(d.state).as("nothing waits on a let-go").isEqualTo(after);
  }

  @Test
  void aKeyAbsentFromARedisThatNeverHadItIsNoWarning() {
    d.answer(d.promoted(3), 2, "");
    assertThat(d.all(Effect.Log.class)).singleElement().matches(l -> !l.warn());
    assertThat(d.state.key().hold().proven()).isFalse();
    assertThat(d.state.gates().open()).isFalse();
  }

  @Test
  void aKeyLostFromTheRedisThatHadItIsAWarning() {
    // A follower's read finds the key on this Redis, written by it.
    d.feed(new Input.PodSeen(pod(BatonNames.FOLLOWER, null, null)));
    String other = value(HoldValue.HELD, 2, DecisionDriver.REDIS, "agent:shop/q:2:x-0");
    d.answer(d.last(HoldCall.ReadHolder.class), 1, other);
    d.feed(new Input.PodSeen(pod(BatonNames.LEADER, 3L, null)));
    d.feed(new Input.Belief(true, 3, d.now + 10_000 * MS));
    d.answer(d.last(HoldCall.Take.class), 2, "");
    assertThat(d.all(Effect.Log.class)).singleElement().matches(Effect.Log::warn);
  }

  @Test
  void aValueAnotherRedisWroteCountsAsAbsentAndIsAWarning() {
    d.answer(d.promoted(3), 2, value(HoldValue.HELD, 2, "old.repl", "agent:shop/q:2:x-0"));
    assertThat(d.all(Effect.Log.class)).singleElement().matches(Effect.Log::warn);
    assertThat(d.state.key().hold().proven()).isFalse();
  }

  @Test
  void aRefusalForANewerTermIsWatchedAndToldOncePerValue() {
    String newer = value(HoldValue.HELD, 5, DecisionDriver.REDIS, "agent:shop/q:5:x-0");
    d.answer(d.promoted(3), 3, newer);
    assertThat(d.all(Effect.Log.class)).singleElement().matches(Effect.Log::warn);
    KeyState.Watched watched = d.state.key().watched();
    assertThat(watched).isEqualTo(new KeyState.Watched(KEY, newer, d.now));

    d.now += 20 * MS;
    d.tick();
    d.now += MS;
    d.answer(d.last(HoldCall.Take.class), 3, newer);
    assertThat(d.all(Effect.Log.class)).as("the same value: told already").isEmpty();
    assertThat(d.state.key().watched()).as("watched since it was first found").isEqualTo(watched);

    d.now += 20 * MS;
    d.tick();
    String renewed = value(HoldValue.HELD, 5, DecisionDriver.REDIS, "agent:shop/q:5:x-1");
    d.answer(d.last(HoldCall.Take.class), 3, renewed);
    assertThat(d.all(Effect.Log.class)).singleElement().matches(Effect.Log::warn);
    assertThat(d.state.key().watched().value()).isEqualTo(renewed);
    assertThat(d.state.gates().open()).isFalse();
  }

  @Test
  void aRefusalWhoseValueThisAgentCannotReadKeepsTheGatesShut() {
    d.answer(d.promoted(3), 3, "a value of another format");
    assertThat(d.state.key().watched().value()).isEqualTo("a value of another format");
    assertThat(d.state.key().hold()).isNull();
    assertThat(d.state.gates().open()).isFalse();
  }

  @Test
  void aLostTakeFoundInTheKeyIsDatedFromItsSendingAndProvenOnlyATtlAfterTheAnswer() {
    HoldCall.Take lost = d.promoted(3);
    long lostAt = d.now;
    d.now += 1000 * MS;
    d.answer(lost, lostAt, null); // given up on: it may still run
    HoldCall.Take next = d.last(HoldCall.Take.class);
    d.now += MS;
    // It ran after all: the key is absent-taken (A) under its name.
    d.answer(next, d.now - MS, DecisionDriver.answer(0, value('A', 3, "run.repl", lost.hold())));

    Hold h = d.state.key().hold();
    assertThat(h.value()).isEqualTo(lost.hold());
    assertThat(h.untilNanos()).isEqualTo(lostAt + TTL - MARGIN);
    assertThat(h.lastSentNanos()).isEqualTo(lostAt);
    assertThat(h.openAfterNanos()).isEqualTo(d.now + TTL);
    // Renewed at once (its take was sent a second ago), not yet as its proof.
    assertThat(d.last(HoldCall.Renew.class).prove()).isFalse();
    assertThat(d.state.key().lost()).isEmpty();
  }

  @Test
  void aProvenLostTakeOfAnOlderTermFoundInTheKeyIsLetGo() {
    HoldCall.Take lost = lostThenPromotedTo(4);
    List<Effect> effects =
        d.answer(d.last(HoldCall.Take.class), 0, value('H', 3, "run.repl", lost.hold()));
    HoldCall.LetGo letGo = d.last(HoldCall.LetGo.class);
    assertThat(letGo.hold().value()).isEqualTo(lost.hold());
    assertThat(letGo.hold().term()).isEqualTo(3);
    assertThat(effects).noneMatch(e -> e instanceof Effect.Open);
    assertThat(d.state.key().lost()).isEmpty();
    assertThat(d.state.key().watched()).as("its own, not another's").isNull();
  }

  @Test
  void anUnprovenLostTakeOfAnOlderTermFoundInTheKeyIsLeftToGoStale() {
    HoldCall.Take lost = lostThenPromotedTo(4);
    d.answer(d.last(HoldCall.Take.class), 0, value('A', 3, "run.repl", lost.hold()));
    assertThat(d.all(HoldCall.LetGo.class)).isEmpty();
    assertThat(d.state.key().lost()).isEmpty();
    assertThat(d.state.key().hold()).isNull();
  }

  /**
   * A take for term 3, given up on after the pod was shown {@code term}; then a grant of that term,
   * whose take is out.
   */
  private HoldCall.Take lostThenPromotedTo(long term) {
    HoldCall.Take lost = d.promoted(3);
    long sentAt = d.now;
    d.now += 1000 * MS;
    d.feed(new Input.PodSeen(pod(BatonNames.LEADER, term, "10.0.0.5")));
    d.answer(lost, sentAt, null);
    d.feed(new Input.Belief(true, term, d.now + 10_000 * MS));
    assertThat(d.last(HoldCall.Take.class).term()).isEqualTo(term);
    return lost;
  }

  @Test
  void aRenewalThatTookALostKeyAgainAnsweredAtTheDeadlineLeavesTheGatesClosed() {
    HoldCall.Renew renew = renewalOut();
    d.now = d.state.key().hold().untilNanos();
    d.answer(renew, renewSentAt, DecisionDriver.answer(3, ""));
    assertThat(d.state.key().hold()).isNull();
    assertThat(d.state.gates().open()).isFalse();
  }

  @Test
  void aRenewalThatTookALostKeyAgainAnsweredBeforeTheDeadlineKeepsTheGatesOpen() {
    HoldCall.Renew renew = renewalOut();
    d.now = d.state.key().hold().untilNanos() - 1;
    d.answer(renew, renewSentAt, DecisionDriver.answer(3, ""));
    assertThat(d.state.key().hold().value()).isEqualTo(renew.retakeAs());
    assertThat(d.state.gates().open()).isTrue();
  }

  /** Leading, a renewal sent 500 ms after the take: out, with a name to take the key again. */
  private HoldCall.Renew renewalOut() {
    d.leading(3);
    d.now += 500 * MS;
    renewSentAt = d.now;
    d.tick();
    HoldCall.Renew renew = d.last(HoldCall.Renew.class);
    assertThat(renew.retakeAs()).isNotNull();
    return renew;
  }

  @Test
  void aTakeOpensTheGatesUntilItsSendingPlusTheTtlLessTheMargin() {
    HoldCall.Take take = d.promoted(3);
    long sentAt = d.now;
    d.now += 300 * MS;
    d.answer(take, sentAt, DecisionDriver.answer(1, ""));
    assertThat(d.last(Effect.Open.class).untilNanos()).isEqualTo(sentAt + TTL - MARGIN);
  }

  @Test
  void aRenewalExtendsTheGatesToItsSendingPlusTheTtlLessTheMargin() {
    HoldCall.Renew renew = renewalOut();
    d.now += 300 * MS;
    d.answer(renew, renewSentAt, DecisionDriver.answer(1, ""));
    assertThat(d.last(Effect.Open.class).untilNanos()).isEqualTo(renewSentAt + TTL - MARGIN);
    assertThat(d.state.key().hold().lastSentNanos()).isEqualTo(renewSentAt);
  }

  @Test
  void aRenewalRedisDidNotAnswerLeavesTheHoldToItsDeadline() {
    HoldCall.Renew renew = renewalOut();
    Hold held = d.state.key().hold();
    d.now += 300 * MS;
    d.answer(renew, renewSentAt, null);
    assertThat(d.state.key().hold()).isEqualTo(held);
    assertThat(d.state.gates().open()).isTrue();
    d.now = held.untilNanos();
    d.tick();
    assertThat(d.state.gates().open()).as("at its deadline").isFalse();
  }

  @Test
  void aRenewalAnsweredAfterItsHoldWasLetGoReopensNothing() {
    HoldCall.Renew renew = renewalOut();
    d.feed(new Input.Belief(false, 3, d.now));
    assertThat(d.all(HoldCall.LetGo.class)).hasSize(1);
    d.now += MS;
    assertThat(d.answer(renew, renewSentAt, DecisionDriver.answer(1, "")))
        .noneMatch(e -> e instanceof Effect.Open);
    assertThat(d.state.key().hold()).isNull();
  }

  @Test
  void aRenewalThatFindsTheKeyAnothersOrLostDropsTheHoldAndClosesTheGates() {
    for (int code : new int[] {0, 2}) {
      DecisionDriver fresh = new DecisionDriver();
      fresh.leading(3);
      fresh.now += 500 * MS;
      fresh.tick();
      HoldCall.Renew renew = fresh.last(HoldCall.Renew.class);
      fresh.now += MS;
      List<Effect> effects = fresh.answer(renew, fresh.now - MS, DecisionDriver.answer(code, ""));
      assertThat(effects).as("answered %d", code).anyMatch(e -> e instanceof Effect.Close);
      assertThat(fresh.state.gates().open()).isFalse();
      assertThat(effects).noneMatch(e -> e instanceof HoldCall.LetGo);
      assertThat(fresh.state.key().hold()).isNull();
    }
  }

  @Test
  void aReadOfTheHolderRedisDidNotAnswerChangesNothingButLetsTheNextCallGo() {
    d.feed(new Input.PodSeen(pod(BatonNames.FOLLOWER, null, null)));
    HoldCall.ReadHolder read = d.last(HoldCall.ReadHolder.class);
    AgentState before = d.state;
    d.now += 300 * MS;
    d.answer(read, d.now - 300 * MS, null);
    assertThat(d.state.key().callPending()).isFalse();
    assertThat(d.state.leader()).isEqualTo(before.leader());
    assertThat(d.state.key().watched()).isNull();
  }
}
