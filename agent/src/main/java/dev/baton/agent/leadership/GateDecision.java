package dev.baton.agent.leadership;

import dev.baton.agent.leadership.GateMachine.Answered;
import dev.baton.agent.leadership.GateMachine.Belief;
import dev.baton.agent.leadership.GateMachine.Closing;
import dev.baton.agent.leadership.GateMachine.Config;
import dev.baton.agent.leadership.GateMachine.Effect;
import dev.baton.agent.leadership.GateMachine.Input;
import dev.baton.agent.leadership.GateMachine.KeyMessage;
import dev.baton.agent.leadership.GateMachine.PodSeen;
import dev.baton.agent.leadership.GateMachine.State;
import dev.baton.agent.leadership.GateMachine.Tick;
import java.util.List;

/**
 * Everything the agent decides about its pod's leadership, as one pure function: the state and one
 * input (a value a source posted, or the timer), with the time, give the next state and the effects
 * to carry out, in order (docs/design.md, "The agent: leadership, locks and a gate for any
 * container"). {@link LeadershipLoop} is its only caller in the agent; the gate model
 * (GateModelTest) drives it through every interleaving it explores. {@link GateRun} works out one
 * step, {@link GateAnswers} what the key's answers mean.
 */
final class GateDecision {

  private GateDecision() {}

  /** The next state, and what to carry out, in order. */
  record Step(State state, List<Effect> effects) {}

  static Step step(Config c, State s, Input in, long now) {
    GateRun r = new GateRun(c, s, now);
    if (in instanceof Belief b) {
      r.belief(b);
    } else if (in instanceof PodSeen p) {
      r.podSeen(p.facts());
    } else if (in instanceof Tick) {
      r.apply(null);
      r.keyWork();
    } else if (in instanceof KeyMessage m) {
      r.keyMessage(m.key());
    } else if (in instanceof Closing) {
      r.closing = true;
      r.release("the agent is stopping");
    } else if (in instanceof Answered a) {
      new GateAnswers(r).answered(a);
    }
    return new Step(r.state(), List.copyOf(r.effects));
  }
}
