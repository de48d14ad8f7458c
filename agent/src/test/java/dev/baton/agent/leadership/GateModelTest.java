package dev.baton.agent.leadership;

import static dev.baton.agent.leadership.GateModel.MS;
import static dev.baton.agent.leadership.GateModel.TTL;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The gate's exclusivity, checked by exploring every interleaving, up to a stated depth, of agents
 * running the agent's own rule ({@link GateDecision}, not a copy of it) against a Redis that
 * follows the gate scripts ({@link GateScriptsModel}, held to the Lua by
 * GateScriptsDifferentialIT): the operator's relabels (demote, promote, a new term), API reads that
 * hang, agents paused, calls run late, lost or after their answer was given up, and Redis faults
 * (the key deleted, Redis restarted empty, restarted from an older snapshot or a replica promoted
 * with an older value, its clock stepped either way). After every action: never two gates
 * forwarding, no gate open past what its reads and scripts allow, never a gate opened for a term
 * below the newest shown to it or written to the key. Breadth first, each world compared as of now,
 * so that the same world reached by different paths is explored once; the number of worlds is
 * printed.
 */
class GateModelTest {

  /**
   * Agent 0 open on a proven hold, taken when agent 1, the leader before it, let go: so that the
   * key has been released once, and a snapshot may hold that release. The other agents follow.
   */
  private static GateModel leading(int agents, GateModel.Budget budget) {
    GateModel w =
        GateModelOperator.promote(
            GateModel.start(agents, new GateModel.Budget(9, 9, 9, 9, 9, 99)), 1);
    w = settle(GateModelAgents.informAll(w));
    w = settle(GateModelAgents.advance(w, TTL)); // taken from an absent key, proven a ttl later
    assertThat(w.forwarding()).as("the first leader's gate is open").containsExactly(1);
    w = settle(GateModelOperator.demote(w)); // its gate closed, its hold released
    w = settle(GateModelAgents.advance(settle(GateModelOperator.promote(w, 0)), TTL / 4));
    assertThat(w.forwarding()).as("the leader's gate is open").containsExactly(0);
    return new GateModel(
        w.now(),
        w.agents(),
        w.pods(),
        w.termCounter(),
        w.redis(),
        w.history(),
        w.incarnations(),
        w.maxOpened(),
        w.flights(),
        w.reads(),
        budget);
  }

  /** Every call in flight run and answered, in order. */
  private static GateModel settle(GateModel w) {
    while (!w.flights().isEmpty()) {
      GateModel.Flight f = w.flights().get(0);
      w =
          f.call() instanceof GateMachine.LetGo
              ? GateModelRedis.letGoRuns(w, 0)
              : f.ran() ? GateModelRedis.answer(w, 0) : GateModelRedis.run(w, 0);
    }
    return w;
  }

  /**
   * The old leader's agent open; its API may hang; the operator demotes it and promotes the other;
   * one Redis fault of the given kind, anywhere in between.
   */
  @ParameterizedTest
  @EnumSource(Fault.class)
  void aHandOverUnderARedisFaultNeverHasTwoGatesForwarding(Fault fault) {
    Result r =
        explore(
            leading(2, new GateModel.Budget(1, 0, 2, 1, 0, 3)),
            10,
            new Moves(Set.of(0), Set.of(), Set.of(1), false, Set.of(fault)));
    report("two agents, a hand-over, " + fault, r);
  }

  /** The same hand-over with the old leader paused once and one call lost or answered late. */
  @Test
  void aHandOverWithAPauseAndALostCallNeverHasTwoGatesForwarding() {
    Result r =
        explore(
            leading(2, new GateModel.Budget(0, 1, 2, 1, 1, 3)),
            10,
            new Moves(Set.of(0), Set.of(0), Set.of(1), false, Set.of()));
    report("two agents, a hand-over, a pause, a lost call", r);
  }

  /**
   * The leader re-acquired with a new term (its agent lets its hold go and takes the key again)
   * while the old agent, not yet told of its demotion, polls for the key.
   */
  @Test
  void aNewTermNeverLetsAnOlderOneReopen() {
    Result r =
        explore(
            leading(2, new GateModel.Budget(0, 0, 3, 1, 0, 3)),
            10,
            new Moves(Set.of(0), Set.of(), Set.of(1), true, Set.of()));
    report("two agents, new terms and a hand-over", r);
  }

  @Test
  void threeAgentsHandOverWithoutTwoGates() {
    Result r =
        explore(
            leading(3, new GateModel.Budget(1, 0, 2, 1, 0, 2)),
            8,
            new Moves(Set.of(0), Set.of(), Set.of(1, 2), false, Set.of(Fault.RESTORE)));
    report("three agents, a hand-over, a restore", r);
  }

  private static void report(String what, Result r) {
    System.out.printf(
        "gate model: %s: %,d worlds explored to depth %d, %,d actions tried%n",
        what, r.worlds, r.depth, r.actions);
    assertThat(r.counterexample).as("a counterexample").isNull();
  }

  record Result(int worlds, long actions, int depth, String counterexample) {}

  /** Breadth first to {@code depth} actions; the first violation found, with its trace. */
  static Result explore(GateModel start, int depth, Moves moves) {
    depth += Integer.getInteger("baton.gate.model.deeper", 0);
    GateModel first = start.canonical();
    Map<GateModel, Step> seen = new HashMap<>();
    seen.put(first, new Step(null, "start"));
    ArrayDeque<GateModel> frontier = new ArrayDeque<>();
    frontier.add(first);
    long actions = 0;
    for (int level = 0; level < depth && !frontier.isEmpty(); level++) {
      ArrayDeque<GateModel> next = new ArrayDeque<>();
      for (GateModel w : frontier) {
        for (Action a : actions(w, moves)) {
          actions++;
          GateModel after = a.next().get();
          if (after == null) {
            continue;
          }
          String broken = after.violation(w);
          GateModel c = after.canonical();
          if (broken != null) {
            return new Result(
                seen.size(), actions, level + 1, trace(seen, w, a.name()) + "\n  => " + broken);
          }
          if (!seen.containsKey(c)) {
            seen.put(c, new Step(w, a.name()));
            next.add(c);
          }
        }
      }
      frontier = next;
      if (Boolean.getBoolean("baton.gate.model.verbose")) {
        Map<String, Integer> kinds = new HashMap<>();
        for (GateModel x : next) {
          Step st = seen.get(x);
          kinds.merge(st.action().replaceAll("[0-9]", "#"), 1, Integer::sum);
        }
        System.out.println("level " + (level + 1) + ": " + next.size() + " new " + kinds);
      }
    }
    return new Result(seen.size(), actions, depth, null);
  }

  record Step(GateModel parent, String action) {}

  record Action(String name, Supplier<GateModel> next) {}

  private static String trace(Map<GateModel, Step> seen, GateModel last, String action) {
    List<String> steps = new ArrayList<>();
    steps.add(action);
    for (GateModel w = last; w != null; ) {
      Step s = seen.get(w);
      steps.add(0, s.action());
      w = s.parent();
    }
    return "trace of " + steps.size() + " actions: " + String.join(", ", steps);
  }

  /**
   * What a scenario lets happen besides time, calls and their faults: which agents' API may hang or
   * be paused, which may be promoted, whether the leader may get a new term, which Redis faults.
   */
  record Moves(
      Set<Integer> hang,
      Set<Integer> pause,
      Set<Integer> promote,
      boolean newTerm,
      Set<Fault> faults) {}

  /** The Redis faults a scenario lets happen. */
  enum Fault {
    DELETE,
    RESTART_EMPTY,
    RESTORE,
    CLOCK_STEP
  }

  /** Every action that may come next. */
  static List<Action> actions(GateModel w, Moves m) {
    Set<Fault> faults = m.faults();
    List<Action> out = new ArrayList<>();
    for (int a : m.hang()) {
      out.add(new Action("API of " + a + " hangs", () -> GateModelAgents.hang(w, a)));
    }
    for (int a : m.pause()) {
      out.add(new Action("pause " + a, () -> GateModelAgents.pause(w, a)));
      out.add(new Action("resume " + a, () -> GateModelAgents.resume(w, a)));
    }
    for (int a : m.promote()) {
      out.add(new Action("promote " + a, () -> GateModelOperator.promote(w, a)));
    }
    out.add(new Action("demote", () -> GateModelOperator.demote(w)));
    if (m.newTerm()) {
      out.add(new Action("new term", () -> GateModelOperator.reterm(w)));
    }
    for (int k = 0; k < w.reads().size(); k++) {
      int r = k;
      out.add(
          new Action(
              "late read answered to " + w.reads().get(r).agent(),
              () -> GateModelAgents.deliverRead(w, r)));
    }
    for (int k = 0; k < w.flights().size(); k++) {
      int f = k;
      GateModel.Flight flight = w.flights().get(f);
      String call = flight.call().getClass().getSimpleName() + " of " + flight.agent();
      if (flight.call() instanceof GateMachine.LetGo) {
        out.add(new Action(call + " runs", () -> GateModelRedis.letGoRuns(w, f)));
        out.add(new Action(call + " never runs", () -> GateModelRedis.letGoLost(w, f)));
        continue;
      }
      if (!flight.ran()) {
        out.add(new Action(call, () -> GateModelRedis.complete(w, f)));
        out.add(new Action(call + " runs, answered later", () -> GateModelRedis.runLate(w, f)));
      } else {
        out.add(new Action("late answer of " + call, () -> GateModelRedis.answer(w, f)));
      }
      out.add(new Action(call + " given up", () -> GateModelRedis.lose(w, f)));
    }
    out.add(new Action("advance 500 ms", () -> GateModelAgents.advance(w, 500 * MS)));
    out.add(new Action("advance ttl", () -> GateModelAgents.advance(w, TTL)));
    if (faults.contains(Fault.DELETE)) {
      out.add(new Action("delete key", () -> GateModelRedis.deleteKey(w)));
    }
    if (faults.contains(Fault.RESTART_EMPTY)) {
      out.add(new Action("restart empty", () -> GateModelRedis.restartEmpty(w)));
    }
    if (faults.contains(Fault.RESTORE)) {
      for (int k = 0; k < w.history().size(); k++) {
        int h = k;
        out.add(
            new Action(
                "restore " + w.history().get(h).value(), () -> GateModelRedis.restore(w, h)));
      }
    }
    if (faults.contains(Fault.CLOCK_STEP)) {
      out.add(new Action("clock +2500 ms", () -> GateModelRedis.clockStep(w, 2500)));
      out.add(new Action("clock -2500 ms", () -> GateModelRedis.clockStep(w, -2500)));
    }
    return out;
  }
}
