package dev.baton.agent.leadership;

import dev.baton.agent.gate.GateWindow;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A world of agents running the agent's own decision ({@link LeadershipDecision}), each with the
 * gates it carries out ({@link GateWindow}, the rule its event loops apply) and a clock of its own;
 * one hold key in a Redis that follows the hold scripts ({@link HoldScriptsModel}); an operator
 * that relabels pods; pod reads that may be answered late, out of order, or never; calls to Redis
 * that may run late, be given up on, run after that, or run twice; and the {@code baton:gates}
 * messages. {@code maxOpened} is the highest term any gate opened with so far: no gate may open for
 * a lower one later (its bytes would follow a newer leader's). Immutable: every action returns the
 * next world, or null when it cannot happen.
 *
 * <p>This is the world and its invariants; the actions are the agents' ({@link GateModelAgents}),
 * the operator's ({@link GateModelOperator}) and Redis's ({@link GateModelRedis}); {@link
 * GateModelCanon} puts a world in the one form that all worlds equal to it share; {@link
 * GateModelSearch} explores.
 */
record GateModel(
    long now,
    List<Agent> agents,
    List<Pod> pods,
    long termCounter,
    HoldScriptsModel redis,
    List<HoldScriptsModel> history,
    int incarnations,
    long maxOpened,
    List<Flight> flights,
    List<Read> reads,
    List<Integer> notes,
    Budget budget,
    String broke) {

  static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
  static final long TTL = 2000 * MS;
  static final String NS = "shop";
  static final String GROUP = "g";
  static final String KEY = HoldKey.name(NS, GROUP);
  static final String ROLE = "baton.dev/role";

  /** What BatonLeadership subtracts from a read's validity before it believes it. */
  static final long CONFIRM_MARGIN = 100 * MS;

  /**
   * One agent. Its times are by its own clock: the world's now plus {@code offset}.
   *
   * @param window the gates as carried out: what their event loops check
   * @param hung its API reads and watch hang: it learns nothing of its pod any more
   * @param lastAsked when the read it last believed was sent (an older read is overtaken)
   * @param newestTold the highest term it was shown for its pod
   * @param confirmBound the latest deadline a read it believed allows
   * @param holdBounds per hold, the latest deadline its successful scripts allow
   */
  record Agent(
      AgentState state,
      GateWindow window,
      long offset,
      boolean paused,
      boolean hung,
      long lastAsked,
      long newestTold,
      long confirmBound,
      Map<String, Long> holdBounds) {

    Agent with(AgentState s, GateWindow w) {
      return new Agent(s, w, offset, paused, hung, lastAsked, newestTold, confirmBound, holdBounds);
    }

    Agent paused(boolean p) {
      return new Agent(
          state, window, offset, p, hung, lastAsked, newestTold, confirmBound, holdBounds);
    }

    Agent hung(boolean h) {
      return new Agent(
          state, window, offset, paused, h, lastAsked, newestTold, confirmBound, holdBounds);
    }

    Agent told(long asked, long newest, long bound) {
      return new Agent(state, window, offset, paused, hung, asked, newest, bound, holdBounds);
    }

    Agent bounds(Map<String, Long> b) {
      return new Agent(
          state, window, offset, paused, hung, lastAsked, newestTold, confirmBound, Map.copyOf(b));
    }

    /** Whether it can take an input now. */
    boolean free() {
      return !paused;
    }
  }

  record Pod(String name, boolean leader, long term) {}

  /**
   * A call to Redis.
   *
   * @param sentAt by its agent's clock
   * @param retake whether a renewal may take an absent key again, as the call says at sending
   * @param runs how many times it ran (twice: the client resent it)
   * @param answer its last run's answer, null before it ran
   * @param abandoned its agent was told it got no answer; it may still run, unanswered
   */
  record Flight(
      int agent,
      HoldCall call,
      long sentAt,
      boolean retake,
      int runs,
      HoldKey.Answer answer,
      boolean abandoned) {}

  /**
   * A read of a pod, sent at {@code sentAt} (its agent's clock), answering what the pod carried
   * then; {@code seen}: its pod was passed on, its belief not yet.
   */
  record Read(int agent, long sentAt, boolean leader, long term, boolean seen) {}

  /** How many of each kind of event may still happen. */
  record Budget(
      int faults,
      int pauses,
      int operator,
      int hangs,
      int losses,
      int resends,
      int lates,
      int advances) {

    private static Budget of(int[] b) {
      return new Budget(b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
    }

    private int[] all() {
      return new int[] {faults, pauses, operator, hangs, losses, resends, lates, advances};
    }

    private Budget spend(int k) {
      int[] b = all();
      if (b[k] <= 0) {
        return null;
      }
      b[k]--;
      return of(b);
    }

    Budget fault() {
      return spend(0);
    }

    Budget pause() {
      return spend(1);
    }

    Budget operate() {
      return spend(2);
    }

    Budget hang() {
      return spend(3);
    }

    Budget lose() {
      return spend(4);
    }

    Budget resend() {
      return spend(5);
    }

    Budget late() {
      return spend(6);
    }

    Budget advance() {
      return spend(7);
    }
  }

  static LeadershipConfig config(int agent) {
    return new LeadershipConfig(
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

  /** Agent i's clock runs this far ahead of the world's: no two agents read the same time. */
  static long offset(int agent) {
    return agent * 7_000_001_003L;
  }

  static GateModel start(int agents, Budget budget) {
    List<Agent> a = new ArrayList<>();
    List<Pod> p = new ArrayList<>();
    for (int i = 0; i < agents; i++) {
      long t = offset(i);
      a.add(
          new Agent(
              AgentState.initial(t),
              GateWindow.SHUT,
              t,
              false,
              false,
              t - TTL * 10,
              0,
              t - TTL * 10,
              Map.of()));
      p.add(new Pod("p" + i, false, 0));
    }
    return new GateModel(
        0,
        a,
        p,
        0,
        new HoldScriptsModel("r0", null, 0, 0, 1_000_000),
        List.of(),
        0,
        0,
        List.of(),
        List.of(),
        List.of(),
        budget,
        null);
  }

  /** Agent i's clock now. */
  long clock(int i) {
    return now + agents.get(i).offset();
  }

  // ---- the invariants, checked after every action

  /** Agents whose gates forward now: by the rule their event loops apply, on their own clocks. */
  List<Integer> forwarding() {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < agents.size(); i++) {
      if (agents.get(i).window().mayRelay(clock(i))) {
        out.add(i);
      }
    }
    return out;
  }

  /** Why this world breaks an invariant, or null. {@code before} is the world it came from. */
  String violation(GateModel before) {
    if (broke != null) {
      return broke;
    }
    List<Integer> fwd = forwarding();
    if (fwd.size() > 1) {
      return "two gates forwarding: agents " + fwd;
    }
    for (int i = 0; i < agents.size(); i++) {
      Agent a = agents.get(i);
      Agent was = before.agents.get(i);
      GateWindow w = a.window();
      if (!w.open()) {
        continue;
      }
      AgentState s = a.state();
      if (w.untilNanos() - a.confirmBound() > 0) {
        return "agent " + i + " open past what its reads allow";
      }
      Long held = s.key().hold() == null ? null : a.holdBounds().get(s.key().hold().value());
      if (!w.equals(was.window()) && (held == null || w.untilNanos() - held > 0)) {
        return "agent " + i + " open past what its hold's scripts allow";
      }
      if (!was.window().open()) {
        long term = s.pod().term();
        if (term < before.maxOpened || term < a.newestTold()) {
          return "agent "
              + i
              + " opened for term "
              + term
              + " below term "
              + Math.max(before.maxOpened, a.newestTold())
              + (term < before.maxOpened ? ", with which a gate opened before" : ", shown to it");
        }
      }
    }
    return null;
  }

  // ---- copies

  /** This world's fields, to change a few and build the next world from. */
  private static final class Copy {
    long now;
    List<Agent> agents;
    List<Pod> pods;
    long termCounter;
    HoldScriptsModel redis;
    List<HoldScriptsModel> history;
    int incarnations;
    long maxOpened;
    List<Flight> flights;
    List<Read> reads;
    List<Integer> notes;
    Budget budget;
    String broke;

    Copy(GateModel w) {
      now = w.now;
      agents = w.agents;
      pods = w.pods;
      termCounter = w.termCounter;
      redis = w.redis;
      history = w.history;
      incarnations = w.incarnations;
      maxOpened = w.maxOpened;
      flights = w.flights;
      reads = w.reads;
      notes = w.notes;
      budget = w.budget;
      broke = w.broke;
    }

    GateModel build() {
      return new GateModel(
          now,
          agents,
          pods,
          termCounter,
          redis,
          history,
          incarnations,
          maxOpened,
          flights,
          reads,
          notes,
          budget,
          broke);
    }
  }

  GateModel withAgent(int i, Agent a) {
    List<Agent> l = new ArrayList<>(agents);
    l.set(i, a);
    Copy c = new Copy(this);
    c.agents = List.copyOf(l);
    return c.build();
  }

  GateModel withPod(int i, Pod p, long terms) {
    List<Pod> l = new ArrayList<>(pods);
    l.set(i, p);
    Copy c = new Copy(this);
    c.pods = List.copyOf(l);
    c.termCounter = terms;
    return c.build();
  }

  GateModel withFlights(List<Flight> f) {
    Copy c = new Copy(this);
    c.flights = List.copyOf(f);
    return c.build();
  }

  GateModel withReads(List<Read> r) {
    Copy c = new Copy(this);
    c.reads = List.copyOf(r);
    return c.build();
  }

  GateModel withNotes(List<Integer> n) {
    Copy c = new Copy(this);
    c.notes = List.copyOf(n);
    return c.build();
  }

  GateModel withNow(long t) {
    Copy c = new Copy(this);
    c.now = t;
    return c.build();
  }

  GateModel withRedis(HoldScriptsModel r, int inc) {
    Copy c = new Copy(this);
    c.redis = r;
    c.history = remember(r);
    c.incarnations = inc;
    return c.build();
  }

  /** The key as it was, for a later restore: the last three states that held a value. */
  List<HoldScriptsModel> remember(HoldScriptsModel r) {
    HoldScriptsModel saved = new HoldScriptsModel("saved", r.value(), r.highest(), r.writes(), 0);
    if (r.value() == null || history.contains(saved)) {
      return history;
    }
    List<HoldScriptsModel> h = new ArrayList<>(history);
    h.add(saved);
    while (h.size() > 3) {
      h.remove(0);
    }
    return List.copyOf(h);
  }

  GateModel opened(long term) {
    Copy c = new Copy(this);
    c.maxOpened = Math.max(maxOpened, term);
    return c.build();
  }

  GateModel withBudget(Budget b) {
    Copy c = new Copy(this);
    c.budget = b;
    return c.build();
  }

  /** This world, broken: {@code why} is the invariant an action broke on its way. */
  GateModel broken(String why) {
    Copy c = new Copy(this);
    c.broke = why;
    return c.build();
  }

  /** With the history of what was written replaced (the canonical form renames it). */
  GateModel withHistory(List<HoldScriptsModel> h) {
    Copy c = new Copy(this);
    c.history = List.copyOf(h);
    return c.build();
  }
}
