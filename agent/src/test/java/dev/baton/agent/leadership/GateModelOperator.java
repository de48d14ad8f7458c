package dev.baton.agent.leadership;

import dev.baton.agent.leadership.GateModel.Budget;
import dev.baton.agent.leadership.GateModel.Pod;

/**
 * What the operator does in a {@link GateModel} world: relabel pods, break before make, terms only
 * grow. Each action returns the next world, or null when it cannot happen.
 */
final class GateModelOperator {

  private GateModelOperator() {}

  static GateModel demote(GateModel world) {
    int leader = leaderIndex(world);
    Budget b = world.budget().operate();
    if (leader < 0 || b == null) {
      return null;
    }
    // Its watch tells the demoted agent at once, unless its API hangs.
    return GateModelAgents.readNow(
        world.withPod(leader, new Pod("p" + leader, false, 0)).withBudget(b), leader);
  }

  static GateModel promote(GateModel world, int i) {
    Budget b = world.budget().operate();
    if (leaderIndex(world) >= 0 || b == null) {
      return null;
    }
    GateModel w = world.withPod(i, new Pod("p" + i, true, world.termCounter() + 1)).withBudget(b);
    return GateModelAgents.readNow(
        new GateModel(
            w.now(),
            w.agents(),
            w.pods(),
            world.termCounter() + 1,
            w.redis(),
            w.history(),
            w.incarnations(),
            w.maxOpened(),
            w.flights(),
            w.reads(),
            w.budget()),
        i);
  }

  /** The leader's lease lost and re-acquired: a new term for the same pod. */
  static GateModel reterm(GateModel world) {
    int leader = leaderIndex(world);
    Budget b = world.budget().operate();
    if (leader < 0 || b == null) {
      return null;
    }
    GateModel w =
        world.withPod(leader, new Pod("p" + leader, true, world.termCounter() + 1)).withBudget(b);
    return GateModelAgents.readNow(
        new GateModel(
            w.now(),
            w.agents(),
            w.pods(),
            world.termCounter() + 1,
            w.redis(),
            w.history(),
            w.incarnations(),
            w.maxOpened(),
            w.flights(),
            w.reads(),
            w.budget()),
        leader);
  }

  static int leaderIndex(GateModel world) {
    for (int i = 0; i < world.pods().size(); i++) {
      if (world.pods().get(i).leader()) {
        return i;
      }
    }
    return -1;
  }
}
