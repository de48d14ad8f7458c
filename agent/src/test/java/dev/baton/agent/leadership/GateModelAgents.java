package dev.baton.agent.leadership;

import static dev.baton.agent.leadership.GateModel.CONFIRM_MARGIN;
import static dev.baton.agent.leadership.GateModel.GROUP;
import static dev.baton.agent.leadership.GateModel.ROLE;
import static dev.baton.agent.leadership.GateModel.TTL;

import dev.baton.agent.gate.GateWindow;
import dev.baton.agent.leadership.GateModel.Agent;
import dev.baton.agent.leadership.GateModel.Budget;
import dev.baton.agent.leadership.GateModel.Flight;
import dev.baton.agent.leadership.GateModel.Pod;
import dev.baton.agent.leadership.GateModel.Read;
import dev.baton.client.BatonNames;
import dev.baton.client.PodFacts;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What the agents of a {@link GateModel} world do: their own decision fed an input, its effects
 * carried out in order (gates opened and closed, calls sent), reads of their pods (answered at
 * once, late, out of order, their belief after other inputs, or never while their API hangs),
 * pauses, and time passing. Each action returns the next world, or null when it cannot happen.
 */
final class GateModelAgents {

  private GateModelAgents() {}

  /**
   * Feeds {@code input} to agent {@code i} now: its decision's step, and its effects carried out in
   * the order the loop carries them out (gates opened and closed, calls sent). A let-go sent while
   * the agent's gates still forward breaks the world: its successor could open at once.
   */
  static GateModel feed(GateModel world, int i, Input input) {
    Agent a = world.agents().get(i);
    if (!a.free()) {
      return null;
    }
    long now = world.clock(i);
    LeadershipDecision.Step step =
        LeadershipDecision.step(GateModel.config(i), a.state(), input, now);
    GateWindow window = a.window();
    GateModel w = world;
    List<Flight> flights = new ArrayList<>(world.flights());
    for (Effect e : step.effects()) {
      if (e instanceof Effect.Open o) {
        window = window.until(o.untilNanos());
        if (o.opens()) {
          window = window.opened();
          w = w.opened(o.term());
        }
      } else if (e instanceof Effect.Close) {
        window = window.shut();
      } else if (e instanceof HoldCall call) {
        if (call instanceof HoldCall.LetGo && window.mayRelay(now)) {
          w = w.broken("agent " + i + " let go of its hold while its gates forward");
        }
        boolean retake = call instanceof HoldCall.Renew n && n.mayRetakeIfSentAt(now);
        flights.add(new Flight(i, call, now, retake, 0, null, false));
      }
    }
    return w.withFlights(flights).withAgent(i, a.with(step.state(), window));
  }

  static GateModel tick(GateModel world, int i) {
    return feed(world, i, new Input.Tick());
  }

  /** A read of agent i's pod, answered at once (or the watch's event): unless its API hangs. */
  static GateModel inform(GateModel world, int i) {
    Agent a = world.agents().get(i);
    if (!a.free() || a.hung()) {
      return null;
    }
    Pod p = world.pods().get(i);
    return deliver(world, new Read(i, world.clock(i), p.leader(), p.term(), false), true);
  }

  /** Agent i sends a read of its pod now; it is answered later, by another action. */
  static GateModel readLater(GateModel world, int i) {
    Agent a = world.agents().get(i);
    Budget b = world.budget().late();
    if (a.paused() || a.hung() || b == null) {
      return null;
    }
    Pod p = world.pods().get(i);
    List<Read> r = new ArrayList<>(world.reads());
    r.add(new Read(i, world.clock(i), p.leader(), p.term(), false));
    return world.withReads(r).withBudget(b);
  }

  /**
   * Agent i's API hangs from now on: a read it sent now answers later, or never, and it learns
   * nothing more of its pod.
   */
  static GateModel hang(GateModel world, int i) {
    Budget b = world.budget().hang();
    Agent a = world.agents().get(i);
    if (b == null || a.hung()) {
      return null;
    }
    Pod p = world.pods().get(i);
    List<Read> r = new ArrayList<>(world.reads());
    r.add(new Read(i, world.clock(i), p.leader(), p.term(), false));
    return world.withReads(r).withBudget(b).withAgent(i, a.hung(true));
  }

  /**
   * Read k's answer reaches its agent: the pod seen, then (when {@code belief}) its belief at once;
   * else the belief comes by {@link #believe}, after other inputs.
   */
  static GateModel answerRead(GateModel world, int k, boolean belief) {
    Read r = world.reads().get(k);
    if (r.seen() || !world.agents().get(r.agent()).free()) {
      return null;
    }
    List<Read> rest = new ArrayList<>(world.reads());
    rest.remove(k);
    return deliver(world.withReads(rest), r, belief);
  }

  /** The belief of read k, whose pod was passed on already. */
  static GateModel believe(GateModel world, int k) {
    Read r = world.reads().get(k);
    if (!r.seen() || !world.agents().get(r.agent()).free()) {
      return null;
    }
    List<Read> rest = new ArrayList<>(world.reads());
    rest.remove(k);
    return belief(world.withReads(rest), r);
  }

  /** A read's answer, as BatonLeadership passes it on: the pod seen, then the belief. */
  private static GateModel deliver(GateModel world, Read r, boolean belief) {
    Map<String, String> labels = Map.of(ROLE, r.leader() ? BatonNames.LEADER : BatonNames.FOLLOWER);
    Map<String, String> annotations = new HashMap<>();
    annotations.put(BatonNames.GROUP_ANNOTATION, GROUP);
    if (r.leader()) {
      annotations.put(BatonNames.TERM_ANNOTATION, Long.toString(r.term()));
    }
    GateModel w =
        feed(
            world,
            r.agent(),
            new Input.PodSeen(
                new PodFacts(true, "u", labels, annotations, true, "10.0.0." + (1 + r.agent()))));
    if (w == null) {
      return null;
    }
    if (belief) {
      return belief(w, r);
    }
    List<Read> reads = new ArrayList<>(w.reads());
    reads.add(new Read(r.agent(), r.sentAt(), r.leader(), r.term(), true));
    return w.withReads(reads);
  }

  private static GateModel belief(GateModel world, Read r) {
    Agent a = world.agents().get(r.agent());
    if (r.sentAt() - a.lastAsked() < 0) {
      return world; // overtaken by a newer read: BatonLeadership ignores its belief
    }
    long until = r.sentAt() + TTL - CONFIRM_MARGIN;
    GateModel w =
        world.withAgent(
            r.agent(),
            a.told(
                r.sentAt(),
                r.leader() ? Math.max(a.newestTold(), r.term()) : a.newestTold(),
                r.leader() ? Math.max(a.confirmBound(), until) : a.confirmBound()));
    return feed(w, r.agent(), new Input.Belief(r.leader(), r.term(), until));
  }

  /** A message on {@code baton:gates} reaches agent i. */
  static GateModel message(GateModel world, int i) {
    if (!world.notes().contains(i) || !world.agents().get(i).free()) {
      return null;
    }
    List<Integer> n = new ArrayList<>(world.notes());
    n.remove(Integer.valueOf(i));
    return feed(world.withNotes(n), i, new Input.KeyMessage(GateModel.KEY));
  }

  static GateModel pause(GateModel world, int i) {
    Budget b = world.budget().pause();
    Agent a = world.agents().get(i);
    if (b == null || a.paused()) {
      return null;
    }
    return world.withAgent(i, a.paused(true)).withBudget(b);
  }

  static GateModel resume(GateModel world, int i) {
    Agent a = world.agents().get(i);
    return a.paused() ? world.withAgent(i, a.paused(false)) : null;
  }

  /**
   * Time passes to {@code to}; every agent that is running reads its pod (unless its API hangs) and
   * runs its timer: its loop ticks every 10 ms and reads every confirmWithin/4, so one that was not
   * starved (that is {@link #pause}) has done both by then.
   */
  static GateModel advance(GateModel world, long to) {
    Budget b = world.budget().advance();
    if (b == null || to - world.now() <= 0) {
      return null;
    }
    GateModel w = world.withNow(to).withBudget(b);
    for (int i = 0; i < w.agents().size(); i++) {
      GateModel informed = inform(w, i);
      w = informed == null ? w : informed;
      GateModel ticked = tick(w, i);
      w = ticked == null ? w : ticked;
    }
    return w;
  }
}
