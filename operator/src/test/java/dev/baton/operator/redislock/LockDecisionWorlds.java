package dev.baton.operator.redislock;

import dev.baton.client.LockView;

/** What the decision tests build their worlds from beside Redis and the pods. */
final class LockDecisionWorlds {

  private LockDecisionWorlds() {}

  /**
   * The grant a state names when the operator of {@code clusterId} granted {@code value} with
   * Redis's token; null when the value is none, or not a grant of this cluster (a state names only
   * its own).
   */
  static LockState.Grant held(String clusterId, String value, LockView view) {
    return value == null
        ? null
        : LockLabels.grantedHere(value, clusterId)
            .map(pod -> new LockState.Grant(value, pod, view.tokenOf(value), 0, view))
            .orElse(null);
  }
}
