package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.PrinterColumn;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** What the operator observed and did: the current leader, its term, and conditions. */
@JsonClassDescription(
    "What the operator observed and did: the leader, its fencing term, the routing and the"
        + " conditions.")
@JsonInclude(JsonInclude.Include.NON_NULL)
public class LeaderGroupStatus {

  @PrinterColumn(name = "LEADER", priority = 0)
  @JsonPropertyDescription("Name of the leader pod; empty when there is none.")
  private String leader;

  @JsonPropertyDescription("UID of the leader pod; empty when there is none.")
  private String leaderUID;

  @PrinterColumn(name = "TERM")
  @JsonPropertyDescription(
      "Fencing term: strictly increases with every new lease of this election, never decreases.")
  private Long term;

  @JsonPropertyDescription(
      "Terms up to this one are reserved: recorded here before Redis may issue them, so that after"
          + " Redis loses its data the next term is above it. Only grows.")
  private Long reservedTerm;

  @JsonPropertyDescription("When the current leader was elected (RFC 3339).")
  private String leaderSince;

  @PrinterColumn(name = "CANDIDATES")
  @JsonPropertyDescription("Number of ready candidate pods.")
  private Integer candidates;

  private Long observedGeneration;

  @JsonPropertyDescription(
      "The Services that route to the leader (selecting the role label with the value leader, or"
          + " spec.service), and the pods they list.")
  private List<RouteStatus> routing;

  @JsonPropertyDescription(
      "A not-ready leader kept for spec.failoverDelay, and when leadership moves if it stays not"
          + " ready.")
  private PendingFailover pendingFailover;

  @JsonPropertyDescription(
      "The agent image the operator injects, set while pods of the group carry the label"
          + " baton.dev/agent: such a pod that runs another agent image is outdated.")
  private String agentImage;

  @JsonPropertyDescription(
      "Ready (has a leader), RedisAvailable, Routed, Conflict, Invalid, SplitBrainSuspected,"
          + " Paused, AgentInjected (metav1.Condition).")
  private List<Condition> conditions = new ArrayList<>();

  public String getLeader() {
    return leader;
  }

  public void setLeader(String leader) {
    this.leader = leader;
  }

  public String getLeaderUID() {
    return leaderUID;
  }

  public void setLeaderUID(String leaderUID) {
    this.leaderUID = leaderUID;
  }

  public Long getTerm() {
    return term;
  }

  public void setTerm(Long term) {
    this.term = term;
  }

  public Long getReservedTerm() {
    return reservedTerm;
  }

  public void setReservedTerm(Long reservedTerm) {
    this.reservedTerm = reservedTerm;
  }

  public String getLeaderSince() {
    return leaderSince;
  }

  public void setLeaderSince(String leaderSince) {
    this.leaderSince = leaderSince;
  }

  public Integer getCandidates() {
    return candidates;
  }

  public void setCandidates(Integer candidates) {
    this.candidates = candidates;
  }

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public List<RouteStatus> getRouting() {
    return routing;
  }

  public void setRouting(List<RouteStatus> routing) {
    this.routing = routing;
  }

  public PendingFailover getPendingFailover() {
    return pendingFailover;
  }

  public void setPendingFailover(PendingFailover pendingFailover) {
    this.pendingFailover = pendingFailover;
  }

  public String getAgentImage() {
    return agentImage;
  }

  public void setAgentImage(String agentImage) {
    this.agentImage = agentImage;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof LeaderGroupStatus s)) {
      return false;
    }
    return Objects.equals(leader, s.leader)
        && Objects.equals(leaderUID, s.leaderUID)
        && Objects.equals(term, s.term)
        && Objects.equals(reservedTerm, s.reservedTerm)
        && Objects.equals(leaderSince, s.leaderSince)
        && Objects.equals(candidates, s.candidates)
        && Objects.equals(observedGeneration, s.observedGeneration)
        && Objects.equals(routing, s.routing)
        && Objects.equals(pendingFailover, s.pendingFailover)
        && Objects.equals(agentImage, s.agentImage)
        && Objects.equals(conditions, s.conditions);
  }

  @Override
  public int hashCode() {
    return Objects.hash(leader, leaderUID, term, leaderSince, candidates, observedGeneration);
  }
}
