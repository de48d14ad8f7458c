package dev.baton.agent.leadership;

import static dev.baton.agent.leadership.GateModel.TTL;

import dev.baton.agent.leadership.GateModel.Agent;
import dev.baton.agent.leadership.GateModel.Flight;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;

/**
 * Explores every interleaving of a {@link GateModel} world's actions to a stated depth, depth
 * first, each world in its canonical form ({@link GateModelCanon}) and remembered by its
 * fingerprint ({@link GateModelFingerprint}) with the most actions left when it was reached, so
 * that a world reached again with fewer left is not explored again. Stops at the first world that
 * breaks an invariant, with the actions that led to it.
 */
final class GateModelSearch {

  private GateModelSearch() {}

  /**
   * What a scenario lets happen besides time, calls and their faults: which agents' API may hang or
   * be paused, which may be promoted, whether the leader may get a new term, whether reads may come
   * late, which Redis faults.
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

  record Result(long worlds, long actions, int depth, String counterexample, long millis) {}

  record Action(String name, Supplier<GateModel> next) {}

  /** Depth first to {@code depth} actions; the first violation found, with its trace. */
  static Result explore(GateModel start, int depth, Moves moves) {
    long t0 = System.nanoTime();
    Visited seen = new Visited();
    GateModel first = GateModelCanon.of(start);
    seen.offer(GateModelFingerprint.of(first), depth);
    List<String> path = new ArrayList<>();
    long[] actions = {0};
    String found = dfs(first, depth, moves, seen, path, actions);
    return new Result(seen.size(), actions[0], depth, found, (System.nanoTime() - t0) / 1_000_000);
  }

  private static String dfs(
      GateModel w, int left, Moves moves, Visited seen, List<String> path, long[] actions) {
    for (Action a : actions(w, moves)) {
      if ((++actions[0] & 0xFFFFF) == 0 && Boolean.getBoolean("baton.gate.model.verbose")) {
        System.out.printf("  ... %,d actions, %,d worlds%n", actions[0], seen.size());
      }
      GateModel after = a.next().get();
      if (after == null || after.equals(w)) {
        continue;
      }
      path.add(a.name());
      String broken = after.violation(w);
      if (broken != null) {
        return "trace of "
            + path.size()
            + " actions: "
            + String.join(", ", path)
            + "\n  => "
            + broken;
      }
      if (left > 1) {
        GateModel c = GateModelCanon.of(after);
        if (seen.offer(GateModelFingerprint.of(c), left - 1)) {
          String deeper = dfs(c, left - 1, moves, seen, path, actions);
          if (deeper != null) {
            return deeper;
          }
        }
      }
      path.remove(path.size() - 1);
    }
    return null;
  }

  /** Every action that may come next. */
  static List<Action> actions(GateModel w, Moves m) {
    List<Action> out = new ArrayList<>();
    int n = w.agents().size();
    for (int i = 0; i < n; i++) {
      int a = i;
      out.add(new Action("read " + a + " later", () -> GateModelAgents.readLater(w, a)));
      if (w.notes().contains(a)) {
        out.add(new Action("message to " + a, () -> GateModelAgents.message(w, a)));
      }
      if (m.hang().contains(a)) {
        out.add(new Action("API of " + a + " hangs", () -> GateModelAgents.hang(w, a)));
      }
      if (m.pause().contains(a)) {
        out.add(new Action("pause " + a, () -> GateModelAgents.pause(w, a)));
        out.add(new Action("resume " + a, () -> GateModelAgents.resume(w, a)));
      }
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
      int to = w.reads().get(k).agent();
      if (w.reads().get(k).seen()) {
        out.add(new Action("belief of a read to " + to, () -> GateModelAgents.believe(w, r)));
      } else {
        out.add(
            new Action(
                "late read answered to " + to, () -> GateModelAgents.answerRead(w, r, true)));
        out.add(
            new Action(
                "late read's pod to " + to + ", its belief later",
                () -> GateModelAgents.answerRead(w, r, false)));
      }
    }
    boolean[] promptSeen = new boolean[n];
    for (int k = 0; k < w.flights().size(); k++) {
      Flight f = w.flights().get(k);
      if (prompt(f)) {
        // An agent's calls run in the order it sent them; a later one overtakes an earlier only
        // when that one is given up (a loss in the budget), as over Redisson's connections.
        if (promptSeen[f.agent()]) {
          continue;
        }
        promptSeen[f.agent()] = true;
      }
      flightActions(w, k, out);
    }
    if (w.flights().stream().anyMatch(GateModelSearch::prompt)) {
      // A call in flight runs before time passes, unless given up or answered late (both in the
      // budget): a call that runs late is bounded, for its sender, by its send time.
      faultActions(w, m.faults(), out);
      return out;
    }
    for (long to : instants(w).stream().limit(2).toList()) {
      out.add(
          new Action(
              "advance " + (to - w.now()) / 1000 + " us", () -> GateModelAgents.advance(w, to)));
    }
    faultActions(w, m.faults(), out);
    return out;
  }

  /** A call sent and not run, not given up: it runs before time passes. */
  private static boolean prompt(Flight f) {
    return f.runs() == 0 && !f.abandoned();
  }

  private static void flightActions(GateModel w, int k, List<Action> out) {
    Flight f = w.flights().get(k);
    String call = f.call().getClass().getSimpleName() + " of " + f.agent();
    if (f.call() instanceof HoldCall.LetGo) {
      if (f.runs() == 0) {
        out.add(new Action(call + " runs", () -> GateModelRedis.run(w, k)));
        out.add(new Action(call + " never runs", () -> GateModelRedis.letGoLost(w, k)));
      } else {
        out.add(new Action(call + " runs again", () -> GateModelRedis.runAgain(w, k)));
      }
      return;
    }
    if (f.runs() == 0) {
      if (!f.abandoned()) {
        out.add(new Action(call, () -> GateModelRedis.complete(w, k)));
      }
      out.add(
          new Action(
              call + (f.abandoned() ? " runs, given up" : " runs, answered later"),
              () -> GateModelRedis.runLate(w, k)));
    } else {
      if (!f.abandoned()) {
        out.add(new Action("answer of " + call, () -> GateModelRedis.answer(w, k)));
      }
      out.add(new Action(call + " runs again", () -> GateModelRedis.runAgain(w, k)));
    }
    if (!f.abandoned()) {
      out.add(new Action(call + " given up", () -> GateModelRedis.giveUp(w, k)));
    }
  }

  private static void faultActions(GateModel w, Set<Fault> faults, List<Action> out) {
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
  }

  /**
   * The instants time may advance to: each deadline or due time that some agent's decision or gates
   * compare now with (a hold's deadline, its proof, its renewal, a watch's ttl, a confirmation's
   * end, a poll), the instant itself and the one just before, up to two ttl ahead. The search takes
   * the earliest two: a running agent's timer fires at every deadline (it ticks every 10 ms), so
   * time skipping one is a starved agent, which is what {@code pause} is for.
   */
  static TreeSet<Long> instants(GateModel w) {
    TreeSet<Long> out = new TreeSet<>();
    for (int i = 0; i < w.agents().size(); i++) {
      Agent a = w.agents().get(i);
      AgentState s = a.state();
      LeadershipConfig c = GateModel.config(i);
      List<Long> due = new ArrayList<>();
      if (a.window().open()) {
        due.add(a.window().untilNanos());
      }
      if (s.pod().confirmed()) {
        due.add(s.pod().confirmedUntilNanos());
        if (s.key().hold() == null) {
          due.add(s.key().lastTake() + c.takeEveryNanos());
        }
      } else {
        due.add(s.key().lastHolderRead() + c.holderEveryNanos() + 1);
      }
      Hold h = s.key().hold();
      if (h != null) {
        due.add(h.untilNanos());
        due.add(h.lastSentNanos() + c.renewEveryNanos());
        if (!h.proven()) {
          due.add(h.openAfterNanos());
        }
      }
      if (s.key().watched() != null) {
        due.add(s.key().watched().sinceNanos() + c.ttlNanos());
      }
      for (long t : due) {
        long global = t - a.offset();
        for (long at : new long[] {global - 1, global}) {
          if (at - w.now() > 0 && at - w.now() <= 2 * TTL) {
            out.add(at);
          }
        }
      }
    }
    return out;
  }

  /** Fingerprints seen, each with the most actions that were left when it was reached. */
  static final class Visited {
    private long[] keys = new long[1 << 16];
    private byte[] left = new byte[1 << 16];
    private int size;

    /** Remembers {@code fp} with {@code l} actions left; false when seen with as many already. */
    boolean offer(long fp, int l) {
      if (fp == 0) {
        fp = 1; // 0 marks an empty slot
      }
      if (size * 10 > keys.length * 6) {
        grow();
      }
      int mask = keys.length - 1;
      int i = (int) (fp ^ (fp >>> 32)) & mask;
      while (keys[i] != 0) {
        if (keys[i] == fp) {
          if (left[i] >= l) {
            return false;
          }
          left[i] = (byte) l;
          return true;
        }
        i = (i + 1) & mask;
      }
      keys[i] = fp;
      left[i] = (byte) l;
      size++;
      return true;
    }

    long size() {
      return size;
    }

    private void grow() {
      long[] k = keys;
      byte[] l = left;
      keys = new long[k.length * 2];
      left = new byte[k.length * 2];
      size = 0;
      for (int i = 0; i < k.length; i++) {
        if (k[i] != 0) {
          offer(k[i], l[i]);
        }
      }
    }
  }
}
