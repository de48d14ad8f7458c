package dev.baton.agent.leadership;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A world of agents running the agent's own rule ({@link GateDecision}), one gate key in a Redis
 * that follows the gate scripts ({@link GateScriptsModel}), an operator that relabels pods, an API
 * whose reads may hang, and calls to Redis that may be late, lost or run after their answer was
 * given up. {@code maxOpened} is the highest term any gate opened with so far: no gate may open for
 * a lower one later (its bytes would follow a newer leader's). Immutable: every action returns the
 * next world, or null when it cannot happen. Times are kept relative to now (now is 0 after {@link
 * #canonical}), so that worlds reached by different paths compare equal.
 *
 * <p>This is the world, its invariants and its copies; the actions are the agents' ({@link
 * GateModelAgents}), the operator's ({@link GateModelOperator}) and Redis's ({@link
 * GateModelRedis}).
 */
record GateModel(
    long now,
    List<Agent> agents,
    List<Pod> pods,
    long termCounter,
    GateScriptsModel redis,
    List<GateScriptsModel> history,
    int incarnations,
    long maxOpened,
    List<Flight> flights,
    List<Read> reads,
    Budget budget) {

  static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  static final long TTL = 2000 * MS;
  static final String NS = "shop";
  static final String GROUP = "g";
  static final String KEY = GateKey.name(NS, GROUP);
  static final String ROLE = "baton.dev/role";

  /** What BatonLeadership subtracts from a read's validity before it believes it. */
  static final long CONFIRM_MARGIN = 100 * MS;

  /**
   * One agent.
   *
   * @param hung its API reads and watch hang: it learns nothing of its pod any more
   * @param lastAsked when the read it last believed was sent (an older read is overtaken)
   * @param newestTold the highest term it was shown for its pod
   * @param confirmBound the latest deadline a read it believed allows
   * @param holdBounds per hold, the latest deadline its successful scripts allow
   */
  record Agent(
      GateMachine.State state,
      boolean paused,
      boolean hung,
      long lastAsked,
      long newestTold,
      long confirmBound,
      Map<String, Long> holdBounds) {}

  record Pod(String name, boolean leader, long term) {}

  /**
   * A call to Redis.
   *
   * @param retake whether a renewal may take an absent key again, as the call says at sending
   *     (GateMachine.Renew)
   * @param answer its answer once it ran, null before
   * @param abandoned the agent was told it got no answer; it may still run, unanswered
   */
  record Flight(
      int agent,
      GateMachine.Call call,
      long sentAt,
      boolean retake,
      boolean ran,
      GateKey.Answer answer,
      boolean abandoned) {}

  /** A read of a pod, sent at {@code sentAt}, answering what the pod carried then. */
  record Read(int agent, long sentAt, boolean leader, long term) {}

  /** How many of each kind of event may still happen. */
  record Budget(int faults, int pauses, int operator, int hangs, int losses, int advances) {

    Budget fault() {
      return faults > 0 ? new Budget(faults - 1, pauses, operator, hangs, losses, advances) : null;
    }

    Budget pause() {
      return pauses > 0 ? new Budget(faults, pauses - 1, operator, hangs, losses, advances) : null;
    }

    Budget operate() {
      return operator > 0
          ? new Budget(faults, pauses, operator - 1, hangs, losses, advances)
          : null;
    }

    Budget hang() {
      return hangs > 0 ? new Budget(faults, pauses, operator, hangs - 1, losses, advances) : null;
    }

    Budget lose() {
      return losses > 0 ? new Budget(faults, pauses, operator, hangs, losses - 1, advances) : null;
    }

    Budget advance() {
      return advances > 0
          ? new Budget(faults, pauses, operator, hangs, losses, advances - 1)
          : null;
    }
  }

  static GateMachine.Config config(int agent) {
    return new GateMachine.Config(
        NS,
        "p" + agent,
        ROLE,
        TTL,
        100 * MS,
        TTL / 4,
        20 * MS,
        TTL,
        Long.MAX_VALUE / 4,
        true,
        "n" + agent);
  }

  static GateModel start(int agents, Budget budget) {
    List<Agent> a = new ArrayList<>();
    List<Pod> p = new ArrayList<>();
    for (int i = 0; i < agents; i++) {
      a.add(
          new Agent(GateMachine.State.initial(0), false, false, -TTL * 10, 0, -TTL * 10, Map.of()));
      p.add(new Pod("p" + i, false, 0));
    }
    return new GateModel(
        0,
        a,
        p,
        0,
        new GateScriptsModel("r0", null, 0, 1_000_000),
        List.of(),
        0,
        0,
        List.of(),
        List.of(),
        budget);
  }

  // ---- the invariants, checked after every action

  /** Agents whose gate forwards now: open by their own rule, and before its deadline. */
  List<Integer> forwarding() {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < agents.size(); i++) {
      GateMachine.State s = agents.get(i).state();
      if (s.open() && now - s.openUntil() < 0) {
        out.add(i);
      }
    }
    return out;
  }

  /** Why this world breaks an invariant, or null. {@code before} is the world it came from. */
  String violation(GateModel before) {
    List<Integer> fwd = forwarding();
    if (fwd.size() > 1) {
      return "two gates forwarding: agents " + fwd;
    }
    for (int i = 0; i < agents.size(); i++) {
      Agent a = agents.get(i);
      GateMachine.State s = a.state();
      if (!s.open()) {
        continue;
      }
      if (s.openUntil() - a.confirmBound() > 0) {
        return "agent " + i + " open past what its reads allow";
      }
      Long held = s.hold() == null ? null : a.holdBounds().get(s.hold().value());
      if (held == null || s.openUntil() - held > 0) {
        return "agent " + i + " open past what its hold's scripts allow";
      }
      boolean opened = !before.agents.get(i).state().open();
      if (opened && (s.term() < before.maxOpened || s.term() < a.newestTold())) {
        return "agent "
            + i
            + " opened for term "
            + s.term()
            + " below term "
            + Math.max(before.maxOpened, a.newestTold())
            + (s.term() < before.maxOpened ? ", with which a gate opened before" : ", shown to it");
      }
    }
    return null;
  }

  // ---- copies

  /** The same world as of now = 0, older times clamped where the rule cannot tell them apart. */
  GateModel canonical() {
    long delta = -now;
    long floor = -3 * TTL;
    List<Agent> a = new ArrayList<>();
    for (Agent x : agents) {
      Map<String, Long> bounds = new HashMap<>();
      x.holdBounds().forEach((k, v) -> bounds.put(k, Math.max(v + delta, floor)));
      a.add(
          new Agent(
              x.state().shifted(delta, floor),
              x.paused(),
              x.hung(),
              Math.max(x.lastAsked() + delta, floor),
              x.newestTold(),
              Math.max(x.confirmBound() + delta, floor),
              Map.copyOf(bounds)));
    }
    List<Flight> f = new ArrayList<>();
    for (Flight x : flights) {
      f.add(
          new Flight(
              x.agent(),
              shifted(x.call(), delta, floor),
              Math.max(x.sentAt() + delta, floor),
              x.retake(),
              x.ran(),
              x.answer(),
              x.abandoned()));
    }
    List<Read> r = new ArrayList<>();
    for (Read x : reads) {
      r.add(new Read(x.agent(), Math.max(x.sentAt() + delta, floor), x.leader(), x.term()));
    }
    return new GateModel(
        0,
        List.copyOf(a),
        pods,
        termCounter,
        redis,
        history,
        incarnations,
        maxOpened,
        List.copyOf(f),
        List.copyOf(r),
        budget);
  }

  private static GateMachine.Call shifted(GateMachine.Call c, long delta, long floor) {
    if (c instanceof GateMachine.Renew n) {
      return new GateMachine.Renew(
          n.hold().shifted(delta, floor),
          n.retakeAs(),
          n.retakeBeforeNanos() == Long.MIN_VALUE
              ? Long.MIN_VALUE
              : Math.max(n.retakeBeforeNanos() + delta, floor),
          n.prove());
    }
    if (c instanceof GateMachine.LetGo l) {
      return new GateMachine.LetGo(l.hold().shifted(delta, floor));
    }
    return c;
  }

  GateModel withAgent(int i, Agent a) {
    List<Agent> l = new ArrayList<>(agents);
    l.set(i, a);
    return new GateModel(
        now,
        List.copyOf(l),
        pods,
        termCounter,
        redis,
        history,
        incarnations,
        maxOpened,
        flights,
        reads,
        budget);
  }

  GateModel withPod(int i, Pod p) {
    List<Pod> l = new ArrayList<>(pods);
    l.set(i, p);
    return new GateModel(
        now,
        agents,
        List.copyOf(l),
        termCounter,
        redis,
        history,
        incarnations,
        maxOpened,
        flights,
        reads,
        budget);
  }

  GateModel withFlights(List<Flight> f) {
    return new GateModel(
        now,
        agents,
        pods,
        termCounter,
        redis,
        history,
        incarnations,
        maxOpened,
        List.copyOf(f),
        reads,
        budget);
  }

  GateModel withoutFlight(int k) {
    List<Flight> f = new ArrayList<>(flights);
    f.remove(k);
    return withFlights(f);
  }

  GateModel withRedis(GateScriptsModel r, int inc) {
    return new GateModel(
        now, agents, pods, termCounter, r, remember(r), inc, maxOpened, flights, reads, budget);
  }

  /** The key as it was, for a later restore: the last three states that held a value. */
  List<GateScriptsModel> remember(GateScriptsModel r) {
    GateScriptsModel saved = new GateScriptsModel("saved", r.value(), r.highest(), 0);
    if (r.value() == null || history.contains(saved)) {
      return history;
    }
    List<GateScriptsModel> h = new ArrayList<>(history);
    h.add(saved);
    while (h.size() > 3) {
      h.remove(0);
    }
    return List.copyOf(h);
  }

  GateModel opened(long term) {
    return new GateModel(
        now,
        agents,
        pods,
        termCounter,
        redis,
        history,
        incarnations,
        Math.max(maxOpened, term),
        flights,
        reads,
        budget);
  }

  GateModel withBudget(Budget b) {
    return new GateModel(
        now, agents, pods, termCounter, redis, history, incarnations, maxOpened, flights, reads, b);
  }
}
