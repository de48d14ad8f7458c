package dev.baton.agent.leadership;

import static dev.baton.agent.leadership.DecisionDriver.CONFIG;
import static dev.baton.agent.leadership.DecisionDriver.KEY;
import static dev.baton.agent.leadership.DecisionDriver.MS;
import static dev.baton.agent.leadership.DecisionDriver.SINCE;
import static dev.baton.agent.leadership.DecisionDriver.pod;
import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.BatonNames;
import dev.baton.client.PodFacts;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The decision alone, input by input: what stopping, a terminating pod, a grant and a missing group
 * do, and who the state names as leader as the gates open and close.
 */
class LeadershipDecisionTest {

  private final DecisionDriver d = new DecisionDriver();

  @Test
  void stoppingClosesTheGatesBeforeItLetsTheHoldGoAndTakesNothingAfter() {
    d.leading(3);
    List<Effect> effects = d.feed(new Input.Closing());
    assertThat(effects.get(0)).isInstanceOf(Effect.Close.class);
    HoldCall.LetGo letGo = d.last(HoldCall.LetGo.class);
    assertThat(effects.indexOf(letGo)).isPositive();
    assertThat(letGo.key()).isEqualTo(KEY);
    assertThat(d.state.closing()).isTrue();
    assertThat(d.state.gates().open()).isFalse();
    d.now += 100 * MS;
    assertThat(d.tick()).noneMatch(e -> e instanceof HoldCall.Take);
  }

  @Test
  void aTerminatingPodClosesItsGatesAndLetsItsHoldGo() {
    d.leading(3);
    PodFacts f = pod(BatonNames.LEADER, 3L, "10.0.0.5");
    List<Effect> effects =
        d.feed(
            new Input.PodSeen(
                new PodFacts(true, "u", f.labels(), f.annotations(), true, f.ip(), true)));
    assertThat(effects.get(0)).isInstanceOf(Effect.Close.class);
    assertThat(d.last(HoldCall.LetGo.class).key()).isEqualTo(KEY);
    assertThat(d.state.pod().cut()).isTrue();
    assertThat(d.state.key().hold()).isNull();
  }

  @Test
  void aReadOfRedisFactsChangesNothing() {
    d.leading(3);
    AgentState before = d.state;
    assertThat(d.feed(new Input.FactsRead(KEY, d.now, d.now, null))).isEmpty();
    assertThat(d.state).isSameAs(before);
  }

  @Test
  void aPodLabeledLeaderWithoutAGroupIsWarnedOnceAndOpensNothing() {
    PodFacts noGroup =
        new PodFacts(true, "u", Map.of(DecisionDriver.ROLE, BatonNames.FOLLOWER), Map.of(), true);
    d.feed(new Input.PodSeen(noGroup));
    assertThat(d.all(Effect.Log.class)).as("not confirmed leader: nothing to tell").isEmpty();
    d.feed(
        new Input.PodSeen(
            new PodFacts(
                true,
                "u",
                Map.of(DecisionDriver.ROLE, BatonNames.LEADER),
                Map.of(BatonNames.TERM_ANNOTATION, "3"),
                true)));
    d.feed(new Input.Belief(true, 3, d.now + 10_000 * MS));
    assertThat(d.all(Effect.Log.class)).singleElement().matches(Effect.Log::warn);
    d.now += 50 * MS;
    assertThat(d.tick()).isEmpty();
    d.feed(new Input.Belief(true, 3, d.now + 10_000 * MS));
    assertThat(d.effects).as("told once").isEmpty();
    assertThat(d.state.gates().open()).isFalse();
  }

  @Test
  void aPodWithItsGroupIsNeverWarnedOfAMissingOne() {
    d.promoted(3);
    assertThat(d.all(Effect.Log.class)).isEmpty();
  }

  @Test
  void aGrantTriesTheKeyAtOnceAndARepeatedBeliefWaitsItsTurn() {
    HoldCall.Take first = d.promoted(3);
    d.now += MS;
    d.answer(first, 3, new HoldValue(HoldValue.HELD, 5, 1, "run.repl", "agent:shop/q:5:x-0").raw());
    d.now += MS;
    d.feed(new Input.Belief(true, 3, d.now + 10_000 * MS));
    assertThat(d.effects).as("the same term: the next take in 20 ms").isEmpty();
    d.now += MS;
    d.feed(new Input.Belief(true, 6, d.now + 10_000 * MS));
    assertThat(d.last(HoldCall.Take.class).term()).as("a new term: at once").isEqualTo(6);
  }

  @Test
  void theStateNamesThisPodLeaderWhileItsGatesAreOpenAndNobodyOnceTheyClose() {
    assertThat(d.state.view(CONFIG).group()).as("no read yet").isNull();
    d.promoted(3);
    LeadershipView shut = d.state.view(CONFIG);
    assertThat(shut.group()).isEqualTo("g");
    assertThat(shut.since()).isNull();
    assertThat(shut.leaderPod()).isNull();

    d.answer(d.last(HoldCall.Take.class), 1, "");
    assertThat(d.state.leader()).isEqualTo(new LeaderState("p", 3L, "10.0.0.5"));
    LeadershipView open = d.state.view(CONFIG);
    assertThat(open.leader()).isTrue();
    assertThat(open.since()).isEqualTo(SINCE);
    assertThat(open.leaderIp()).isEqualTo("10.0.0.5");

    d.now += 500 * MS;
    d.tick();
    HoldCall.Renew renew = d.last(HoldCall.Renew.class);
    assertThat(renew.key()).isEqualTo(KEY);
    d.answer(renew, 1, "");
    assertThat(d.last(Effect.Open.class).opens()).as("a later deadline").isFalse();
    assertThat(d.state.leader()).isEqualTo(new LeaderState("p", 3L, "10.0.0.5"));

    d.feed(new Input.Belief(false, 3, d.now));
    assertThat(d.state.gates().open()).isFalse();
    assertThat(d.state.leader()).isEqualTo(LeaderState.NONE);
    assertThat(d.state.view(CONFIG).since()).isNull();
    assertThat(d.state.view(CONFIG).leaderPod()).isNull();
  }

  @Test
  void aTakesHoldNameCarriesThePodsAddress() {
    HoldCall.Take take = d.promoted(3);
    assertThat(HoldValue.addressOf(take.hold())).isEqualTo("10.0.0.5");
    assertThat(HoldValue.podOf(take.hold())).isEqualTo("p");
  }
}
