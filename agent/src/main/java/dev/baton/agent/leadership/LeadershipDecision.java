package dev.baton.agent.leadership;

import dev.baton.client.BatonNames;
import java.util.List;
import java.util.OptionalLong;

/**
 * Everything the agent decides about its pod's leadership, as one pure function: the state and one
 * input (a value a source posted, or the timer), with the time, give the next state and the effects
 * to carry out, in order (docs/design.md, "The agent: leadership, locks and a gate for any
 * container"). {@link LeadershipLoop} is its only caller in the agent; the gate model
 * (GateModelTest) drives it through every interleaving it explores. {@link HoldAnswers} says what
 * the key's answers mean.
 */
final class LeadershipDecision {

  private LeadershipDecision() {}

  /** The next state, and what to carry out, in order. */
  record Step(AgentState state, List<Effect> effects) {}

  static Step step(LeadershipConfig c, AgentState s, Input in, long now) {
    Next<AgentState> n = next(c, s, in, now);
    return new Step(n.value(), n.effects());
  }

  private static Next<AgentState> next(LeadershipConfig c, AgentState s, Input in, long now) {
    if (in instanceof Input.Belief b) {
      return believed(c, s, b, now);
    }
    if (in instanceof Input.PodSeen p) {
      PodState pod = s.pod().seen(p.facts(), c.roleLabel());
      String reason = null;
      if (pod.cut() && !s.pod().cut()) {
        reason =
            pod.facts().terminating()
                ? "the pod is terminating"
                : "the pod is not ready and its group fails over at once";
      }
      return settle(c, s.withPod(pod), now, reason);
    }
    if (in instanceof Input.Tick) {
      return settle(c, s, now, null);
    }
    if (in instanceof Input.KeyMessage m) {
      return keyChanged(c, s, m.key(), now);
    }
    if (in instanceof Input.Closing) {
      return settle(c, s.stopping(), now, "the agent is stopping");
    }
    if (in instanceof Input.Answered a) {
      Next<AgentState> answered = HoldAnswers.answered(c, s, a);
      return a.call() instanceof HoldCall.LetGo
          ? answered // let-goes are sent beside the one call in flight: nothing waits on them
          : answered.then(x -> settle(c, x, now, null));
    }
    return Next.of(s); // FactsRead: only reported
  }

  private static Next<AgentState> believed(
      LeadershipConfig c, AgentState s, Input.Belief b, long now) {
    if (!b.leader()) {
      return s.pod().confirmed()
          ? settle(c, s.withPod(s.pod().believed(b)), now, "no longer confirmed leader")
          : Next.of(s);
    }
    AgentState next = s.withPod(s.pod().believed(b));
    if (s.pod().grantedBy(b)) {
      next = next.withKey(next.key().takeAtOnce(c, now));
    }
    return settle(c, next, now, null);
  }

  /** Another agent took, proved or let go of a key: this group's is tried or read at once. */
  private static Next<AgentState> keyChanged(
      LeadershipConfig c, AgentState s, String key, long now) {
    String group = s.groupKey(c);
    if (!key.equals(group)) {
      return Next.of(s);
    }
    Next<AgentState> n = settle(c, s.withKey(s.key().takeAtOnce(c, now)), now, null);
    if (n.value().pod().confirmed()) {
      return n;
    }
    return n.then(x -> lift(x, x.key().readHolder(c, group, now)));
  }

  /**
   * Brings the gates and the key in line with what the agent knows now: a hold the pod may no
   * longer keep is let go (after the gates closed), the gates set by the rule, the key's next call
   * sent. {@code reason}, when given, is why the gates close.
   */
  static Next<AgentState> settle(LeadershipConfig c, AgentState s, long now, String reason) {
    Next<AgentState> n = Next.of(s);
    if (s.pod().confirmed() && s.pod().group() == null && !s.pod().warnedNoGroup()) {
      n =
          Next.of(
              s.withPod(s.pod().warned()),
              new Effect.Log(
                  true,
                  "the pod is labeled leader but has no "
                      + BatonNames.GROUP_ANNOTATION
                      + " annotation: the gates stay shut"));
    }
    String want = s.wantedKey(c);
    Hold h = s.key().hold();
    if (h != null && (want == null || !want.equals(h.key()) || h.term() != s.pod().term())) {
      String why =
          reason != null
              ? reason
              : h.term() != s.pod().term() ? "the term changed" : "no longer confirmed leader";
      n = n.then(x -> release(c, x, now, why));
    } else {
      n = n.then(x -> gates(c, x, now, reason));
    }
    return n.then(
        x ->
            lift(
                x,
                x.key()
                    .work(
                        c,
                        x.wantedKey(c),
                        x.groupKey(c),
                        x.pod().term(),
                        x.gates().open(),
                        x.pod().ip(),
                        now)));
  }

  /**
   * Drops the hold, closes the gates (no hold, no open gate) and only then lets the hold go: a
   * successor may open as soon as it is released. An unproven hold (taken from an absent key) is
   * left to go stale: a release mark would let the next taker skip the wait that protects against a
   * holder whose key was lost.
   */
  private static Next<AgentState> release(
      LeadershipConfig c, AgentState s, long now, String reason) {
    Hold h = s.key().hold();
    Next<AgentState> closed = gates(c, s.withHold(null), now, reason);
    Effect after =
        h.proven()
            ? new HoldCall.LetGo(h)
            : new Effect.Log(
                false,
                "the hold key "
                    + h.key()
                    + " was taken while absent and is not proven: left to go stale");
    return closed.then(x -> Next.of(x, after));
  }

  /** Opens, extends or closes the gates by the rule, as of now. */
  static Next<AgentState> gates(LeadershipConfig c, AgentState s, long now, String reason) {
    PodState p = s.pod();
    OptionalLong until =
        LeadRule.openUntil(
            new LeadRule.Facts(
                p.mayLead(),
                p.term(),
                p.confirmedUntilNanos(),
                p.cut(),
                s.closing(),
                c.withKey(),
                s.key().hold()),
            now);
    Next<GateState> g =
        s.gates().set(until, p.term(), () -> reason != null ? reason : why(c, s, now));
    LeaderState leader = s.leader();
    if (g.value().open() && !s.gates().open()) {
      leader = new LeaderState(c.pod(), p.term(), p.ip());
    } else if (!g.value().open() && s.gates().open()) {
      leader = leader.without(c.pod());
    }
    return new Next<>(s.withGates(g.value()).withLeader(leader), g.effects());
  }

  static Next<AgentState> lift(AgentState s, Next<KeyState> k) {
    return new Next<>(s.withKey(k.value()), k.effects());
  }

  private static String why(LeadershipConfig c, AgentState s, long now) {
    PodState p = s.pod();
    if (s.closing()) {
      return "the agent is stopping";
    }
    if (!p.confirmed()) {
      return "no longer confirmed leader";
    }
    if (p.term() < p.newestTerm()) {
      return "term " + p.term() + " is older than term " + p.newestTerm() + ", shown since";
    }
    if (now - p.confirmedUntilNanos() >= 0) {
      return "leadership could not be confirmed before its deadline";
    }
    if (c.withKey() && s.key().hold() == null) {
      return "the hold key is not this agent's";
    }
    return "the hold key could not be renewed before its deadline";
  }
}
