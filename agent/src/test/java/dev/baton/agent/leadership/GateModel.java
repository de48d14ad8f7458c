package dev.baton.agent.leadership;

import dev.baton.client.BatonNames;
import dev.baton.client.PodFacts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A world of agents running the agent's own rule ({@link GateMachine}), one gate key in a Redis
 * that follows the gate scripts ({@link GateScriptsModel}), an operator that relabels pods, an API
 * whose reads may hang, and calls to Redis that may be late, lost or run after their answer was
 * given up. {@code maxOpened} is the highest term any gate opened with so far: no gate may open for
 * a lower one later (its bytes would follow a newer leader's). Immutable: every action returns the
 * next world, or null when it cannot happen. Times are kept relative to now (now is 0 after {@link
 * #canonical}), so that worlds reached by different paths compare equal.
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
   * @param retake whether a renewal may take an absent key again, as KeyCalls decides at sending
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

  // ---- the agents

  /** Feeds {@code input} to agent {@code i} now: its rule's step, its calls sent. */
  GateModel feed(int i, GateMachine.Input input) {
    Agent a = agents.get(i);
    if (a.paused()) {
      return null;
    }
    GateMachine.Step step = GateMachine.step(config(i), a.state(), input, now);
    List<Flight> f = new ArrayList<>(flights);
    for (GateMachine.Effect e : step.effects()) {
      if (e instanceof GateMachine.Call call) {
        boolean retake =
            call instanceof GateMachine.Renew n
                && n.retakeAs() != null
                && n.retakeBeforeNanos() != Long.MIN_VALUE
                && now - n.retakeBeforeNanos() < 0;
        f.add(new Flight(i, call, now, retake, false, null, false));
      }
    }
    GateModel w = withAgent(i, agentWith(a, step.state())).withFlights(f);
    if (step.state().open() && !a.state().open()) {
      w = w.opened(step.state().term());
    }
    // A follower's read of the holder changes nothing in Redis and opens nothing: answered at
    // once, so that its timing does not multiply the worlds.
    for (int k = 0; k < w.flights.size(); k++) {
      Flight x = w.flights.get(k);
      if (x.agent() == i && !x.ran() && x.call() instanceof GateMachine.ReadHolder) {
        return w.complete(k);
      }
    }
    return w;
  }

  GateModel tick(int i) {
    return feed(i, new GateMachine.Tick());
  }

  /** A read of agent i's pod, answered at once (or the watch's event): unless its API hangs. */
  GateModel readNow(int i) {
    Pod p = pods.get(i);
    Agent a = agents.get(i);
    return a.paused() || a.hung() ? this : deliver(new Read(i, now, p.leader(), p.term()));
  }

  /** Every agent that can hear the API learns its pod as it is now. */
  GateModel informAll() {
    GateModel w = this;
    for (int i = 0; i < agents.size(); i++) {
      w = w.readNow(i);
    }
    return w;
  }

  /**
   * Agent i's API hangs from now on: a read it sent now answers later, or never, and it learns
   * nothing more of its pod.
   */
  GateModel hang(int i) {
    Budget b = budget.hang();
    Agent a = agents.get(i);
    if (b == null || a.hung()) {
      return null;
    }
    Pod p = pods.get(i);
    List<Read> r = new ArrayList<>(reads);
    r.add(new Read(i, now, p.leader(), p.term()));
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
            List.copyOf(r),
            b)
        .withAgent(
            i,
            new Agent(
                a.state(),
                a.paused(),
                true,
                a.lastAsked(),
                a.newestTold(),
                a.confirmBound(),
                a.holdBounds()));
  }

  GateModel deliverRead(int k) {
    Read r = reads.get(k);
    if (agents.get(r.agent()).paused()) {
      return null;
    }
    List<Read> rest = new ArrayList<>(reads);
    rest.remove(k);
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
            rest,
            budget)
        .deliver(r);
  }

  /** A read's answer, as BatonLeadership passes it on: the pod seen, then the belief. */
  private GateModel deliver(Read r) {
    Agent a = agents.get(r.agent());
    if (a.paused()) {
      return null;
    }
    Map<String, String> labels = Map.of(ROLE, r.leader() ? BatonNames.LEADER : BatonNames.FOLLOWER);
    Map<String, String> annotations = new HashMap<>();
    annotations.put(BatonNames.GROUP_ANNOTATION, GROUP);
    if (r.leader()) {
      annotations.put(BatonNames.TERM_ANNOTATION, Long.toString(r.term()));
    }
    GateModel w =
        feed(
            r.agent(),
            new GateMachine.PodSeen(
                new PodFacts(true, "u", labels, annotations, true, "10.0.0." + (1 + r.agent()))));
    if (r.sentAt() - a.lastAsked() < 0) {
      return w; // overtaken by a newer read: BatonLeadership ignores its belief
    }
    Agent after = w.agents.get(r.agent());
    long until = r.sentAt() + TTL - CONFIRM_MARGIN;
    after =
        new Agent(
            after.state(),
            after.paused(),
            after.hung(),
            r.sentAt(),
            r.leader() ? Math.max(after.newestTold(), r.term()) : after.newestTold(),
            r.leader() ? Math.max(after.confirmBound(), until) : after.confirmBound(),
            after.holdBounds());
    w = w.withAgent(r.agent(), after);
    return w.feed(r.agent(), new GateMachine.Belief(r.leader(), r.term(), until));
  }

  GateModel pause(int i) {
    Budget b = budget.pause();
    Agent a = agents.get(i);
    if (b == null || a.paused()) {
      return null;
    }
    return withAgent(
            i,
            new Agent(
                a.state(),
                true,
                a.hung(),
                a.lastAsked(),
                a.newestTold(),
                a.confirmBound(),
                a.holdBounds()))
        .withBudget(b);
  }

  GateModel resume(int i) {
    Agent a = agents.get(i);
    if (!a.paused()) {
      return null;
    }
    return withAgent(
        i,
        new Agent(
            a.state(),
            false,
            a.hung(),
            a.lastAsked(),
            a.newestTold(),
            a.confirmBound(),
            a.holdBounds()));
  }

  /**
   * Time passes; every agent that is not paused reads its pod (unless its API hangs) and runs its
   * timer: its loop ticks every 10 ms and reads every confirmWithin/4, so one that was not starved
   * (that is {@link #pause}) has done both by then.
   */
  GateModel advance(long by) {
    Budget b = budget.advance();
    if (b == null) {
      return null;
    }
    GateModel w =
        new GateModel(
            now + by,
            agents,
            pods,
            termCounter,
            redis,
            history,
            incarnations,
            maxOpened,
            flights,
            reads,
            b);
    w = w.informAll(); // its reads, every confirmWithin/4
    for (int i = 0; i < agents.size(); i++) {
      if (!agents.get(i).paused()) {
        w = w.tick(i);
      }
    }
    return w;
  }

  // ---- the operator: break before make, terms only grow

  GateModel demote() {
    int leader = leaderIndex();
    Budget b = budget.operate();
    if (leader < 0 || b == null) {
      return null;
    }
    // Its watch tells the demoted agent at once, unless its API hangs.
    return withPod(leader, new Pod("p" + leader, false, 0)).withBudget(b).readNow(leader);
  }

  GateModel promote(int i) {
    Budget b = budget.operate();
    if (leaderIndex() >= 0 || b == null) {
      return null;
    }
    GateModel w = withPod(i, new Pod("p" + i, true, termCounter + 1)).withBudget(b);
    return new GateModel(
            w.now,
            w.agents,
            w.pods,
            termCounter + 1,
            w.redis,
            w.history,
            w.incarnations,
            w.maxOpened,
            w.flights,
            w.reads,
            w.budget)
        .readNow(i);
  }

  /** The leader's lease lost and re-acquired: a new term for the same pod. */
  GateModel reterm() {
    int leader = leaderIndex();
    Budget b = budget.operate();
    if (leader < 0 || b == null) {
      return null;
    }
    GateModel w = withPod(leader, new Pod("p" + leader, true, termCounter + 1)).withBudget(b);
    return new GateModel(
            w.now,
            w.agents,
            w.pods,
            termCounter + 1,
            w.redis,
            w.history,
            w.incarnations,
            w.maxOpened,
            w.flights,
            w.reads,
            w.budget)
        .readNow(leader);
  }

  int leaderIndex() {
    for (int i = 0; i < pods.size(); i++) {
      if (pods.get(i).leader()) {
        return i;
      }
    }
    return -1;
  }

  // ---- Redis: calls run, answered, lost; faults

  GateModel run(int k) {
    Flight f = flights.get(k);
    if (f.ran()) {
      return null;
    }
    GateScriptsModel.Result r = redis.run(f.call(), f.retake());
    List<GateScriptsModel> h = remember(r.after());
    List<Flight> fl = new ArrayList<>(flights);
    if (f.abandoned()) {
      fl.remove(k);
    } else {
      fl.set(k, new Flight(f.agent(), f.call(), f.sentAt(), f.retake(), true, r.answer(), false));
    }
    return new GateModel(
        now,
        agents,
        pods,
        termCounter,
        r.after(),
        h,
        incarnations,
        maxOpened,
        List.copyOf(fl),
        reads,
        budget);
  }

  /**
   * A let-go runs. Its answer changes nothing for its agent (it lets go only after its gates
   * closed, whatever comes back), so it is not delivered; whether it runs, and when, is what
   * matters.
   */
  GateModel letGoRuns(int k) {
    Flight f = flights.get(k);
    if (!(f.call() instanceof GateMachine.LetGo)) {
      return null;
    }
    GateScriptsModel.Result r = redis.run(f.call(), false);
    List<Flight> fl = new ArrayList<>(flights);
    fl.remove(k);
    return new GateModel(
        now,
        agents,
        pods,
        termCounter,
        r.after(),
        remember(r.after()),
        incarnations,
        maxOpened,
        List.copyOf(fl),
        reads,
        budget);
  }

  /** A let-go that never runs (its connection broke): gone from the flights. */
  GateModel letGoLost(int k) {
    Flight f = flights.get(k);
    Budget b = budget.lose();
    if (!(f.call() instanceof GateMachine.LetGo) || b == null) {
      return null;
    }
    return withoutFlight(k).withBudget(b);
  }

  /** A call runs and its answer reaches its agent at once: the usual case. */
  GateModel complete(int k) {
    Flight f = flights.get(k);
    if (f.ran() || f.abandoned() || agents.get(f.agent()).paused()) {
      return null;
    }
    GateModel ran = run(k);
    return ran.answer(k);
  }

  /** A call runs now and its answer comes later, after anything else. */
  GateModel runLate(int k) {
    Flight f = flights.get(k);
    Budget b = budget.lose();
    if (f.abandoned() || b == null) {
      return f.abandoned() ? run(k) : null;
    }
    GateModel ran = run(k);
    return ran == null ? null : ran.withBudget(b);
  }

  /** The answer of a call that ran reaches its agent. */
  GateModel answer(int k) {
    Flight f = flights.get(k);
    if (!f.ran() || f.abandoned() || agents.get(f.agent()).paused()) {
      return null;
    }
    GateModel w = withoutFlight(k).boundHold(f);
    return w.feed(f.agent(), new GateMachine.Answered(f.call(), f.sentAt(), now, f.answer()));
  }

  /** The agent gives up on a call (its timeout): it may still run later, unanswered. */
  GateModel lose(int k) {
    Flight f = flights.get(k);
    Budget b = budget.lose();
    if (f.abandoned() || b == null || agents.get(f.agent()).paused()) {
      return null;
    }
    List<Flight> fl = new ArrayList<>(flights);
    if (f.ran()) {
      fl.remove(k);
    } else {
      fl.set(k, new Flight(f.agent(), f.call(), f.sentAt(), f.retake(), false, null, true));
    }
    return withFlights(fl)
        .withBudget(b)
        .feed(f.agent(), new GateMachine.Answered(f.call(), f.sentAt(), now, null));
  }

  /** What a successful script lets its agent believe of its hold, for the deadline invariant. */
  private GateModel boundHold(Flight f) {
    int code = f.answer().code();
    String hold;
    if (f.call() instanceof GateMachine.Take t && (code == 1 || code == 2)) {
      hold = t.hold();
    } else if (f.call() instanceof GateMachine.Renew n && code == 1) {
      hold = n.hold().value();
    } else if (f.call() instanceof GateMachine.Renew n && code == 3) {
      hold = n.retakeAs();
    } else {
      return this;
    }
    Agent a = agents.get(f.agent());
    Map<String, Long> bounds = new HashMap<>(a.holdBounds());
    bounds.merge(hold, f.sentAt() + TTL - config(f.agent()).marginNanos(), Math::max);
    return withAgent(
        f.agent(),
        new Agent(
            a.state(),
            a.paused(),
            a.hung(),
            a.lastAsked(),
            a.newestTold(),
            a.confirmBound(),
            Map.copyOf(bounds)));
  }

  GateModel deleteKey() {
    Budget b = budget.fault();
    return b == null || redis.value() == null
        ? null
        : withRedis(redis.deleted(), incarnations).withBudget(b);
  }

  /** Redis restarted without its data. */
  GateModel restartEmpty() {
    Budget b = budget.fault();
    return b == null ? null : restarted(null).withBudget(b);
  }

  /**
   * Redis restarted from a snapshot taken earlier, or a replica that lagged promoted: either way
   * another incarnation, holding an older value of the key.
   */
  GateModel restore(int k) {
    Budget b = budget.fault();
    return b == null || k >= history.size() ? null : restarted(history.get(k)).withBudget(b);
  }

  GateModel clockStep(long millis) {
    Budget b = budget.fault();
    return b == null ? null : withRedis(redis.clockStepped(millis), incarnations).withBudget(b);
  }

  private GateModel restarted(GateScriptsModel saved) {
    return withRedis(redis.restarted("r" + (incarnations + 1), saved), incarnations + 1);
  }

  /** The key as it was, for a later restore: the last three states that held a value. */
  private List<GateScriptsModel> remember(GateScriptsModel r) {
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

  private static Agent agentWith(Agent a, GateMachine.State s) {
    return new Agent(
        s, a.paused(), a.hung(), a.lastAsked(), a.newestTold(), a.confirmBound(), a.holdBounds());
  }

  private GateModel withAgent(int i, Agent a) {
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

  private GateModel withPod(int i, Pod p) {
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

  private GateModel withFlights(List<Flight> f) {
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

  private GateModel withoutFlight(int k) {
    List<Flight> f = new ArrayList<>(flights);
    f.remove(k);
    return withFlights(f);
  }

  private GateModel withRedis(GateScriptsModel r, int inc) {
    return new GateModel(
        now, agents, pods, termCounter, r, remember(r), inc, maxOpened, flights, reads, budget);
  }

  private GateModel opened(long term) {
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

  private GateModel withBudget(Budget b) {
    return new GateModel(
        now, agents, pods, termCounter, redis, history, incarnations, maxOpened, flights, reads, b);
  }
}
