package dev.baton.agent.leadership;

import dev.baton.client.BatonNames;
import dev.baton.client.PodFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A failover played on a scratch state, never the agent's: promoted, the key taken, the gates
 * opened, renewed, the pod terminating, the hold let go. A follower's JVM has never run that path
 * when its promotion comes, and the first run of it costs 10-30 ms of class loading and
 * interpretation (measured in the relay benchmark: label to open gate 8-31 ms in a fresh agent, 1-6
 * ms in one that led before); played at start it costs that once, off the failover's clock. It
 * carries out no effect: the decision is a pure function, and its effects are only looked at.
 */
final class LeadershipRehearsal {

  /** The first round pays the loading (about 100 ms unwarmed); a few more, the first profiles. */
  static final int ROUNDS = 20;

  private LeadershipRehearsal() {}

  /**
   * Plays {@code rounds} failovers with {@code c}'s settings; returns the effects seen, counted.
   */
  static int play(LeadershipConfig c, int rounds) {
    int effects = 0;
    for (int i = 0; i < rounds; i++) {
      effects += once(c).size();
    }
    return effects;
  }

  /** One failover; the effects the decision asked for, in order. */
  static List<Effect> once(LeadershipConfig c) {
    long ms = TimeUnit.MILLISECONDS.toNanos(1);
    long[] now = {System.nanoTime()};
    String ip = "10.0.0.1";
    List<Effect> seen = new ArrayList<>();
    AgentState s = AgentState.initial(now[0]);
    List<Input> script =
        List.of(
            new Input.PodSeen(pod(c, BatonNames.FOLLOWER, 1, ip, false)),
            new Input.Tick(),
            new Input.PodSeen(pod(c, BatonNames.LEADER, 2, ip, false)),
            new Input.Belief(true, 2, now[0] + c.ttlNanos()),
            new Input.Tick(),
            new Input.KeyMessage(HoldKey.name(c.namespace(), "rehearsal")),
            new Input.PodSeen(pod(c, BatonNames.LEADER, 2, ip, true)),
            new Input.Belief(false, 2, now[0]),
            new Input.Closing());
    for (Input in : script) {
      s = stepAndAnswer(c, s, in, now[0], seen);
      now[0] += c.renewEveryNanos() + ms;
      s = stepAndAnswer(c, s, new Input.Tick(), now[0], seen);
      AgentView.of(c, s);
    }
    return seen;
  }

  /** One step, and every call it sends answered as Redis answers a free key's owner. */
  private static AgentState stepAndAnswer(
      LeadershipConfig c, AgentState s, Input in, long now, List<Effect> seen) {
    LeadershipDecision.Step step = LeadershipDecision.step(c, s, in, now);
    AgentState next = step.state();
    seen.addAll(step.effects());
    for (Effect e : step.effects()) {
      if (e instanceof HoldCall call && !(call instanceof HoldCall.ReadFacts)) {
        HoldKey.Answer a = new HoldKey.Answer(1, "", "rehearsal", now / 1_000_000);
        LeadershipDecision.Step answered =
            LeadershipDecision.step(c, next, new Input.Answered(call, now, now, a), now);
        next = answered.state();
        seen.addAll(answered.effects());
      }
    }
    return next;
  }

  private static PodFacts pod(
      LeadershipConfig c, String role, long term, String ip, boolean terminating) {
    return new PodFacts(
        true,
        "rehearsal",
        Map.of(c.roleLabel(), role),
        Map.of(
            BatonNames.GROUP_ANNOTATION,
            "rehearsal",
            BatonNames.TERM_ANNOTATION,
            Long.toString(term),
            BatonNames.LEADER_SINCE_ANNOTATION,
            "2025-01-01T00:00:00Z"),
        !terminating,
        ip,
        terminating);
  }
}
