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
 * answered late, lost or given up on, and Redis's faults. Each action returns the next world, or
 * null when it cannot happen.
 */
final class GateModelRedis {

  private GateModelRedis() {}

  static GateModel run(GateModel world, int k) {
    Flight f = world.flights().get(k);
    if (f.ran()) {
      return null;
    }
    GateScriptsModel.Result r = world.redis().run(f.call(), f.retake());
    List<GateScriptsModel> h = world.remember(r.after());
    List<Flight> fl = new ArrayList<>(world.flights());
    if (f.abandoned()) {
      fl.remove(k);
    } else {
      fl.set(k, new Flight(f.agent(), f.call(), f.sentAt(), f.retake(), true, r.answer(), false));
    }
    return new GateModel(
        world.now(),
        world.agents(),
        world.pods(),
        world.termCounter(),
        r.after(),
        h,
        world.incarnations(),
        world.maxOpened(),
        List.copyOf(fl),
        world.reads(),
        world.budget());
  }

  /**
   * A let-go runs. Its answer changes nothing for its agent (it lets go only after its gates
   * closed, whatever comes back), so it is not delivered; whether it runs, and when, is what
   * matters.
   */
  static GateModel letGoRuns(GateModel world, int k) {
    Flight f = world.flights().get(k);
    if (!(f.call() instanceof GateMachine.LetGo)) {
      return null;
    }
    GateScriptsModel.Result r = world.redis().run(f.call(), false);
    List<Flight> fl = new ArrayList<>(world.flights());
    fl.remove(k);
    return new GateModel(
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
        world.budget());
  }

  /** A let-go that never runs (its connection broke): gone from the flights. */
  static GateModel letGoLost(GateModel world, int k) {
    Flight f = world.flights().get(k);
    Budget b = world.budget().lose();
    if (!(f.call() instanceof GateMachine.LetGo) || b == null) {
      return null;
    }
    return world.withoutFlight(k).withBudget(b);
  }

  /** A call runs and its answer reaches its agent at once: the usual case. */
  static GateModel complete(GateModel world, int k) {
    Flight f = world.flights().get(k);
    if (f.ran() || f.abandoned() || world.agents().get(f.agent()).paused()) {
      return null;
    }
    GateModel ran = run(world, k);
    return answer(ran, k);
  }

  /** A call runs now and its answer comes later, after anything else. */
  static GateModel runLate(GateModel world, int k) {
    Flight f = world.flights().get(k);
    Budget b = world.budget().lose();
    if (f.abandoned() || b == null) {
      return f.abandoned() ? run(world, k) : null;
    }
    GateModel ran = run(world, k);
    return ran == null ? null : ran.withBudget(b);
  }

  /** The answer of a call that ran reaches its agent. */
  static GateModel answer(GateModel world, int k) {
    Flight f = world.flights().get(k);
    if (!f.ran() || f.abandoned() || world.agents().get(f.agent()).paused()) {
      return null;
    }
    GateModel w = boundHold(world.withoutFlight(k), f);
    return GateModelAgents.feed(
        w, f.agent(), new GateMachine.Answered(f.call(), f.sentAt(), world.now(), f.answer()));
  }

  /** The agent gives up on a call (its timeout): it may still run later, unanswered. */
  static GateModel lose(GateModel world, int k) {
    Flight f = world.flights().get(k);
    Budget b = world.budget().lose();
    if (f.abandoned() || b == null || world.agents().get(f.agent()).paused()) {
      return null;
    }
    List<Flight> fl = new ArrayList<>(world.flights());
    if (f.ran()) {
      fl.remove(k);
    } else {
      fl.set(k, new Flight(f.agent(), f.call(), f.sentAt(), f.retake(), false, null, true));
    }
    return GateModelAgents.feed(
        world.withFlights(fl).withBudget(b),
        f.agent(),
        new GateMachine.Answered(f.call(), f.sentAt(), world.now(), null));
  }

  /** What a successful script lets its agent believe of its hold, for the deadline invariant. */
  private static GateModel boundHold(GateModel world, Flight f) {
    int code = f.answer().code();
    String hold;
    if (f.call() instanceof GateMachine.Take t && (code == 1 || code == 2)) {
      hold = t.hold();
    } else if (f.call() instanceof GateMachine.Renew n && code == 1) {
      hold = n.hold().value();
    } else if (f.call() instanceof GateMachine.Renew n && code == 3) {
      hold = n.retakeAs();
    } else {
      return world;
    }
    Agent a = world.agents().get(f.agent());
    Map<String, Long> bounds = new HashMap<>(a.holdBounds());
    bounds.merge(hold, f.sentAt() + TTL - GateModel.config(f.agent()).marginNanos(), Math::max);
    return world.withAgent(
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

  private static GateModel restarted(GateModel world, GateScriptsModel saved) {
    return world.withRedis(
        world.redis().restarted("r" + (world.incarnations() + 1), saved), world.incarnations() + 1);
  }
}
