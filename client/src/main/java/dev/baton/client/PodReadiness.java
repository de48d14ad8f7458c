package dev.baton.client;

import java.util.function.Function;

/**
 * When Baton counts a pod as ready: phase Running, with condition Ready True. The operator elects
 * only such pods, and the agent cuts a leader's gates when its pod stops being one; both apply this
 * rule, whatever form they read the pod in (Fabric8's model, the API server's JSON).
 */
public final class PodReadiness {

  private PodReadiness() {}

  /**
   * @param phase the pod's status.phase, or null
   * @param conditions its status.conditions, or null
   * @param type a condition's type
   * @param status a condition's status
   */
  public static <C> boolean isReady(
      String phase, Iterable<C> conditions, Function<C, String> type, Function<C, String> status) {
    if (!"Running".equals(phase) || conditions == null) {
      return false;
    }
    for (C c : conditions) {
      if ("Ready".equals(type.apply(c)) && "True".equals(status.apply(c))) {
        return true;
      }
    }
    return false;
  }
}
