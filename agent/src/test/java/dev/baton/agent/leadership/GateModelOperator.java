package dev.baton.agent.leadership;

import dev.baton.agent.leadership.GateModel.Budget;
import dev.baton.agent.leadership.GateModel.Pod;

/**
 * What the operator does in a {@link GateModel} world: relabel pods, break before make, terms only
 * grow. The relabeled pod's agent hears of it at once through its watch, unless its API hangs or it
 * is busy (then at its next read). Each action returns the next world, or null when it cannot
 * happen.
 */
final class GateModelOperator {

  private GateModelOperator() {}

  static GateModel demote(GateModel world) {
    int leader = leaderIndex(world);
    Budget b = world.budget().operate();
    if (leader < 0 || b == null) {
      return null;
    }
    return watched(
        world.withPod(leader, new Pod("p" + leader, false, 0), world.termCounter()).withBudget(b),
        leader);
  }

  static GateModel promote(GateModel world, int i) {
    Budget b = world.budget().operate();
    if (leaderIndex(world) >= 0 || b == null) {
      return null;
    }
    long term = world.termCounter() + 1;
    return watched(world.withPod(i, new Pod("p" + i, true, term), term).withBudget(b), i);
  }

  /** The leader's lease lost and re-acquired: a new term for the same pod. */
  static GateModel reterm(GateModel world) {
    int leader = leaderIndex(world);
    Budget b = world.budget().operate();
    if (leader < 0 || b == null) {
      return null;
    }
    long term = world.termCounter() + 1;
    return watched(
        world.withPod(leader, new Pod("p" + leader, true, term), term).withBudget(b), leader);
  }

  private static GateModel watched(GateModel world, int i) {
    GateModel told = GateModelAgents.inform(world, i);
    return told == null ? world : told;
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
