package dev.baton.operator.kube;

/** The condition types Baton sets on its resources. */
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
