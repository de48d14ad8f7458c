package dev.baton.agent.leadership;

import static dev.baton.agent.leadership.GateModel.CONFIRM_MARGIN;
import static dev.baton.agent.leadership.GateModel.GROUP;
import static dev.baton.agent.leadership.GateModel.ROLE;
import static dev.baton.agent.leadership.GateModel.TTL;

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
 * What the agents of a {@link GateModel} world do: their own rule fed an input and its calls sent,
 * reads of their pods (answered at once, late, or never while their API hangs), pauses, and time
 * passing. Each action returns the next world, or null when it cannot happen.
 */
final class GateModelAgents {

  private GateModelAgents() {}

  /** Feeds {@code input} to agent {@code i} now: its rule's step, its calls sent. */
  static GateModel feed(GateModel world, int i, GateMachine.Input input) {
    Agent a = world.agents().get(i);
    if (a.paused()) {
      return null;
    }
    GateDecision.Step step = GateDecision.step(GateModel.config(i), a.state(), input, world.now());
    List<Flight> f = new ArrayList<>(world.flights());
    for (GateMachine.Effect e : step.effects()) {
      if (e instanceof GateMachine.Call call) {
        boolean retake = call instanceof GateMachine.Renew n && n.mayRetakeIfSentAt(world.now());
        f.add(new Flight(i, call, world.now(), retake, false, null, false));
      }
    }
    GateModel w = world.withAgent(i, agentWith(a, step.state())).withFlights(f);
    if (step.state().open() && !a.state().open()) {
      w = w.opened(step.state().term());
    }
    // A follower's read of the holder changes nothing in Redis and opens nothing: answered at
    // once, so that its timing does not multiply the worlds.
    for (int k = 0; k < w.flights().size(); k++) {
      Flight x = w.flights().get(k);
      if (x.agent() == i && !x.ran() && x.call() instanceof GateMachine.ReadHolder) {
        return GateModelRedis.complete(w, k);
      }
    }
    return w;
  }

  static GateModel tick(GateModel world, int i) {
    return feed(world, i, new GateMachine.Tick());
  }

  /** A read of agent i's pod, answered at once (or the watch's event): unless its API hangs. */
  static GateModel readNow(GateModel world, int i) {
    Pod p = world.pods().get(i);
    Agent a = world.agents().get(i);
    return a.paused() || a.hung()
        ? world
        : deliver(world, new Read(i, world.now(), p.leader(), p.term()));
  }

  /** Every agent that can hear the API learns its pod as it is now. */
  static GateModel informAll(GateModel world) {
    GateModel w = world;
    for (int i = 0; i < world.agents().size(); i++) {
      w = readNow(w, i);
    }
    return w;
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
    r.add(new Read(i, world.now(), p.leader(), p.term()));
    return new GateModel(
            world.now(),
            world.agents(),
            world.pods(),
            world.termCounter(),
            world.redis(),
            world.history(),
            world.incarnations(),
            world.maxOpened(),
            world.flights(),
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

  static GateModel deliverRead(GateModel world, int k) {
    Read r = world.reads().get(k);
    if (world.agents().get(r.agent()).paused()) {
      return null;
    }
    List<Read> rest = new ArrayList<>(world.reads());
    rest.remove(k);
    return deliver(
        new GateModel(
            world.now(),
            world.agents(),
            world.pods(),
            world.termCounter(),
            world.redis(),
            world.history(),
            world.incarnations(),
            world.maxOpened(),
            world.flights(),
            rest,
            world.budget()),
        r);
  }

  /** A read's answer, as BatonLeadership passes it on: the pod seen, then the belief. */
  private static GateModel deliver(GateModel world, Read r) {
    Agent a = world.agents().get(r.agent());
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
            world,
            r.agent(),
            new GateMachine.PodSeen(
                new PodFacts(true, "u", labels, annotations, true, "10.0.0." + (1 + r.agent()))));
    if (r.sentAt() - a.lastAsked() < 0) {
      return w; // overtaken by a newer read: BatonLeadership ignores its belief
    }
    Agent after = w.agents().get(r.agent());
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
    return feed(w, r.agent(), new GateMachine.Belief(r.leader(), r.term(), until));
  }

  static GateModel pause(GateModel world, int i) {
    Budget b = world.budget().pause();
    Agent a = world.agents().get(i);
    if (b == null || a.paused()) {
      return null;
    }
    return world
        .withAgent(
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

  static GateModel resume(GateModel world, int i) {
    Agent a = world.agents().get(i);
    if (!a.paused()) {
      return null;
    }
    return world.withAgent(
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
  static GateModel advance(GateModel world, long by) {
    Budget b = world.budget().advance();
    if (b == null) {
      return null;
    }
    GateModel w =
        new GateModel(
            world.now() + by,
            world.agents(),
            world.pods(),
            world.termCounter(),
            world.redis(),
            world.history(),
            world.incarnations(),
            world.maxOpened(),
            world.flights(),
            world.reads(),
            b);
    w = informAll(w); // its reads, every confirmWithin/4
    for (int i = 0; i < world.agents().size(); i++) {
      if (!world.agents().get(i).paused()) {
        w = tick(w, i);
      }
    }
    return w;
  }

  private static Agent agentWith(Agent a, GateMachine.State s) {
    return new Agent(
        s, a.paused(), a.hung(), a.lastAsked(), a.newestTold(), a.confirmBound(), a.holdBounds());
  }
}
