package dev.baton.agent.leadership;

import dev.baton.client.PodFacts;

/**
 * What the leadership loop publishes after every step, for the threads that ask (HTTP, probes,
 * metrics, relays): the leadership answer, and the pod as the loop last saw it.
 *
 * @param podRead a read of the pod has answered
 * @param podReady the pod, as last seen, is ready as the operator counts it
 * @param podUid its uid, once a read showed it
 * @param labeledLeader a read confirmed it labeled leader (whether or not its gates are open)
 */
public record AgentView(
    LeadershipView leadership,
    boolean podRead,
    boolean podReady,
    String podUid,
    boolean labeledLeader) {

  static AgentView initial(String pod) {
    return new AgentView(
        new LeadershipView(false, null, pod, null, null, null, null, null),
        false,
        false,
        null,
        false);
  }

  static AgentView of(LeadershipConfig c, AgentState s) {
    PodFacts f = s.pod().facts();
    return new AgentView(
        s.view(c),
        f != null,
        f != null && f.ready(),
        f == null ? null : f.uid(),
        s.pod().confirmed());
  }

  AgentView withLeadership(LeadershipView v) {
    return new AgentView(v, podRead, podReady, podUid, labeledLeader);
  }
}
