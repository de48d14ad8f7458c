package dev.baton.api.v1alpha1;

/**
 * The condition types Baton sets on its resources: the operator writes them, and {@code kubectl
 * baton} and the metrics read them by these names.
 */
public enum ConditionType {
  Ready,
  RedisAvailable,
  Conflict,
  Invalid,
  SplitBrainSuspected,
  Routed,
  QuorumLost,
  Paused,
  /**
   * A LeaderGroup whose pods ask for the agent (label baton.dev/agent): False while one of them
   * runs without it; True otherwise, with reason AgentOutdated while some run another image than
   * the operator's.
   */
  AgentInjected
}
