package dev.baton.agent.leadership;

import static dev.baton.agent.leadership.GateModel.TTL;

import dev.baton.agent.leadership.GateModel.Agent;
import dev.baton.agent.leadership.GateModel.Budget;
import dev.baton.agent.leadership.GateModel.Flight;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What happens to the calls and the key of a {@link GateModel} world in Redis: calls run, answered,
 * answered late, given up on (and run after that), run twice (a client that resends), and Redis's
 * faults. Each action returns the next world, or null when it cannot happen.
 */
final class GateModelRedis {

  private GateModelRedis() {}

  /** Flight k's script runs now. */
  static GateModel run(GateModel world, int k) {
    Flight f = world.flights().get(k);
    HoldScriptsModel.Result r = world.redis().run(f.call(), f.retake());
    List<Flight> fl = new ArrayList<>(world.flights());
    // A let-go's answer changes nothing for its agent (it let go once its gates closed, whatever
    // comes back): only whether it runs, and when, matters.
    boolean answered = !f.abandoned() && !(f.call() instanceof HoldCall.LetGo);
    boolean keep = answered || mayRunAgain(world, f.runs() + 1);
    if (keep) {
      fl.set(
          k,
          new Flight(
              f.agent(),
              f.call(),
              f.sentAt(),
              f.retake(),
              f.runs() + 1,
              r.answer(),
              f.abandoned()));
    } else {
      fl.remove(k);
    }
    GateModel w =
        new GateModel(
            world.now(),
            world.agents(),
            world.pods(),
            world.termCounter(),
            r.after(),
            world.remember(r.after()),
            world.incarnations(),
            world.maxOpened(),
            List.copyOf(fl),
            world.reads(),
            world.notes(),
            world.budget(),
            world.broke());
    w = bound(w, f, r);
    if (HoldScriptsModel.tells(f.call(), r)) {
      List<Integer> all = new ArrayList<>();
      for (int i = 0; i < w.agents().size(); i++) {
        all.add(i);
      }
      w = w.withNotes(all);
    }
    return w;
  }

  private static boolean mayRunAgain(GateModel world, int runs) {
    return runs < 2 && world.budget().resends() > 0;
  }

  /** A call runs and its answer reaches its agent at once: the usual case. */
  static GateModel complete(GateModel world, int k) {
    Flight f = world.flights().get(k);
    if (f.runs() > 0 || f.abandoned() || !world.agents().get(f.agent()).free()) {
      return null;
    }
    return answer(run(world, k), k);
  }

  /** A call runs now; its answer comes later, after anything else (or never: it is given up). */
  static GateModel runLate(GateModel world, int k) {
    Flight f = world.flights().get(k);
    if (f.runs() > 0) {
      return null;
    }
    if (f.abandoned()) {
      return run(world, k); // given up already: it runs unanswered
    }
    Budget b = world.budget().late();
    return b == null ? null : run(world, k).withBudget(b);
  }

  /** A call that ran runs again: the client resent it (a Redisson timeout, say). */
  static GateModel runAgain(GateModel world, int k) {
    Flight f = world.flights().get(k);
    Budget b = world.budget().resend();
    if (f.runs() != 1 || b == null) {
      return null;
    }
    return run(world.withBudget(b), k);
  }

  /** The answer of a call that ran reaches its agent. */
  static GateModel answer(GateModel world, int k) {
    Flight f = world.flights().get(k);
    if (f.runs() == 0 || f.abandoned() || !world.agents().get(f.agent()).free()) {
      return null;
    }
    List<Flight> fl = new ArrayList<>(world.flights());
    fl.remove(k);
    return GateModelAgents.feed(
        world.withFlights(fl),
        f.agent(),
        new Input.Answered(f.call(), f.sentAt(), world.clock(f.agent()), f.answer()));
  }

  /** The agent gives up on a call (its timeout): it may still run later, unanswered. */
  static GateModel giveUp(GateModel world, int k) {
    Flight f = world.flights().get(k);
    Budget b = world.budget().lose();
    if (f.abandoned() || b == null || !world.agents().get(f.agent()).free()) {
      return null;
    }
    List<Flight> fl = new ArrayList<>(world.flights());
    if (f.runs() == 0 || mayRunAgain(world, f.runs() + 1)) {
      fl.set(k, new Flight(f.agent(), f.call(), f.sentAt(), f.retake(), f.runs(), null, true));
    } else {
      fl.remove(k);
    }
    return GateModelAgents.feed(
        world.withFlights(fl).withBudget(b),
        f.agent(),
        new Input.Answered(f.call(), f.sentAt(), world.clock(f.agent()), null));
  }

  /** A let-go that never runs (its connection broke): gone from the flights. */
  static GateModel letGoLost(GateModel world, int k) {
    Flight f = world.flights().get(k);
    Budget b = world.budget().lose();
    if (!(f.call() instanceof HoldCall.LetGo) || f.runs() > 0 || b == null) {
      return null;
    }
    List<Flight> fl = new ArrayList<>(world.flights());
    fl.remove(k);
    return world.withFlights(fl).withBudget(b);
  }

  /**
   * What a successful script lets its agent believe of the hold it wrote: its sending plus the ttl
   * less the margin, the deadline invariant's bound (by the agent's clock).
   */
  private static GateModel bound(GateModel world, Flight f, HoldScriptsModel.Result r) {
    int code = r.answer().code();
    String hold;
    if (f.call() instanceof HoldCall.Take t && (code == 1 || code == 2)) {
      hold = t.hold();
    } else if (f.call() instanceof HoldCall.Renew n && code == 1) {
      hold = n.hold().value();
    } else if (f.call() instanceof HoldCall.Renew n && code == 3) {
      hold = n.retakeAs();
    } else {
      return world;
    }
    Agent a = world.agents().get(f.agent());
    Map<String, Long> bounds = new HashMap<>(a.holdBounds());
    bounds.merge(hold, f.sentAt() + TTL - GateModel.config(f.agent()).marginNanos(), Math::max);
    return world.withAgent(f.agent(), a.bounds(bounds));
  }

  static GateModel deleteKey(GateModel world) {
    Budget b = world.budget().fault();
    return b == null || world.redis().value() == null
        ? null
        : world.withRedis(world.redis().deleted(), world.incarnations()).withBudget(b);
  }

  /** Redis restarted without its data. */
  static GateModel restartEmpty(GateModel world) {
    Budget b = world.budget().fault();
    return b == null ? null : restarted(world, null).withBudget(b);
  }

  /**
   * Redis restarted from a snapshot taken earlier, or a replica that lagged promoted: either way
   * another incarnation, holding an older value of the key.
   */
  static GateModel restore(GateModel world, int k) {
    Budget b = world.budget().fault();
    return b == null || k >= world.history().size()
        ? null
        : restarted(world, world.history().get(k)).withBudget(b);
  }

  static GateModel clockStep(GateModel world, long millis) {
    Budget b = world.budget().fault();
    return b == null
        ? null
        : world.withRedis(world.redis().clockStepped(millis), world.incarnations()).withBudget(b);
  }

  private static GateModel restarted(GateModel world, HoldScriptsModel saved) {
    return world.withRedis(
        world.redis().restarted("r" + (world.incarnations() + 1), saved), world.incarnations() + 1);
  }
}
