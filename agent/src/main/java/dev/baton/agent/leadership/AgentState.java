package dev.baton.agent.leadership;

import dev.baton.client.BatonNames;
import java.util.Map;

/**
 * Everything the agent knows about its pod's leadership, as four facts each with one owner: the pod
 * as last read ({@link PodState}), the key as last answered ({@link KeyState}), the gates ({@link
 * GateState}) and the leader as this agent sees it ({@link LeaderState}); and whether the agent is
 * stopping. Only {@link LeadershipDecision} makes the next one.
 */
record AgentState(
    PodState pod, KeyState key, GateState gates, LeaderState leader, boolean closing) {

  static AgentState initial(long now) {
    return new AgentState(
        PodState.initial(now), KeyState.initial(now), GateState.shut(now), LeaderState.NONE, false);
  }

  AgentState withPod(PodState p) {
    return new AgentState(p, key, gates, leader, closing);
  }

  AgentState withKey(KeyState k) {
    return new AgentState(pod, k, gates, leader, closing);
  }

  /** The key as before, held by {@code h} now (null: not held). */
  AgentState withHold(Hold h) {
    return withKey(key.withHold(h));
  }

  AgentState withGates(GateState g) {
    return new AgentState(pod, key, g, leader, closing);
  }

  AgentState withLeader(LeaderState l) {
    return new AgentState(pod, key, gates, l, closing);
  }

  AgentState stopping() {
    return new AgentState(pod, key, gates, leader, true);
  }

  /** The group's hold key, from the pod's group annotation; null while unknown. */
  String groupKey(LeadershipConfig c) {
    String group = pod.group();
    return group == null ? null : HoldKey.name(c.namespace(), group);
  }

  /** The key this agent should hold now: its group's, while the pod may lead; else null. */
  String wantedKey(LeadershipConfig c) {
    return c.withKey() && pod.mayLead() && !closing && !pod.cut() ? groupKey(c) : null;
  }

  /** The answer for HTTP and metrics. */
  LeadershipView view(LeadershipConfig c) {
    Map<String, String> a = pod.facts() == null ? Map.of() : pod.facts().annotations();
    boolean open = gates.open();
    return new LeadershipView(
        open,
        open ? pod.term() : null,
        c.pod(),
        a.get(BatonNames.GROUP_ANNOTATION),
        open ? a.get(BatonNames.LEADER_SINCE_ANNOTATION) : null,
        leader.pod(),
        leader.term(),
        leader.ip());
  }
}
