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
  Paused
}
