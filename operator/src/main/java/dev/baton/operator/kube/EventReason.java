package dev.baton.operator.kube;

/** Reasons of the Events Baton records, with their Kubernetes event type. */
public enum EventReason {
  Initial(false),
  LeaderDeleted(false),
  LeaderNotReady(false),
  LeaderTerminating(false),
  LeaderNodeLost(false),
  LeaderOptedOut(false),
  LeaseExpired(false),
  Switchover(false),
  SwitchoverRefused(true),
  NoCandidates(true),
  WaitingForCandidates(false),
  Conflict(true),
  RoleLabelNotAllowed(true),
  InvalidSpec(true),
  KeyInUse(true),
  RedisUnavailable(true),
  RedisRecovered(false),
  LeaderInOtherCluster(false),
  SplitBrainSuspected(true),
  FailoverPending(true),
  FailoverAverted(false),
  RoutingSlow(true),
  RoutingConverged(false),
  ServiceProblem(true),
  LockAcquired(false),
  LockMoved(false),
  LockLost(true),
  LockReaped(false),
  ForceReleased(false),
  QuorumLost(true),
  RedisUserRefused(true),
  RedisUserRotated(false),
  AgentMissing(true),
  AgentOutdated(false),
  AgentPermissionsNotWritten(true);

  private final boolean warning;

  EventReason(boolean warning) {
    this.warning = warning;
  }

  public String type() {
    return warning ? "Warning" : "Normal";
  }
}
