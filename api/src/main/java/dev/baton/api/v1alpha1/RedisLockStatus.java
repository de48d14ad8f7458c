package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** What the operator observed in Redis: who holds the lock, its token and expiry, conditions. */
@JsonClassDescription(
    "What the operator observed in Redis: the holder, its fencing token, the expiry and the"
        + " conditions.")
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RedisLockStatus {

  @JsonPropertyDescription(
      "The holder: a pod as namespace/name, or the external holder id found in Redis; empty"
          + " when the lock is free.")
  private String holder;

  @JsonPropertyDescription(
      "Fencing token of the current (or last) hold: strictly increases with every acquisition.")
  private Long fencingToken;

  @JsonPropertyDescription(
      "Tokens up to this one are reserved: recorded here before Redis may issue them, so that"
          + " after Redis loses its data the next token is above it. Only grows.")
  private Long reservedToken;

  @JsonPropertyDescription("When the current holder took the lock, as first seen (RFC 3339).")
  private String acquiredAt;

  @JsonPropertyDescription(
      "When the lock expires unless renewed, from Redis's remaining time (RFC 3339).")
  private String expiresAt;

  @JsonPropertyDescription("Redlock only: each instance, whether it answered and holds the lock.")
  private List<RedisLockInstanceStatus> instances;

  private Long observedGeneration;

  @JsonPropertyDescription("Ready, RedisAvailable, Invalid, QuorumLost (metav1.Condition).")
  private List<Condition> conditions = new ArrayList<>();

  public String getHolder() {
    return holder;
  }

  public void setHolder(String holder) {
    this.holder = holder;
  }

  public Long getFencingToken() {
    return fencingToken;
  }

  public void setFencingToken(Long fencingToken) {
    this.fencingToken = fencingToken;
  }

  public Long getReservedToken() {
    return reservedToken;
  }

  public void setReservedToken(Long reservedToken) {
    this.reservedToken = reservedToken;
  }

  public String getAcquiredAt() {
    return acquiredAt;
  }

  public void setAcquiredAt(String acquiredAt) {
    this.acquiredAt = acquiredAt;
  }

  public String getExpiresAt() {
    return expiresAt;
  }

  public void setExpiresAt(String expiresAt) {
    this.expiresAt = expiresAt;
  }

  public List<RedisLockInstanceStatus> getInstances() {
    return instances;
  }

  public void setInstances(List<RedisLockInstanceStatus> instances) {
    this.instances = instances;
  }

  public Long getObservedGeneration() {
    return observedGeneration;
  }

  public void setObservedGeneration(Long observedGeneration) {
    this.observedGeneration = observedGeneration;
  }

  public List<Condition> getConditions() {
    return conditions;
  }

  public void setConditions(List<Condition> conditions) {
    this.conditions = conditions;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof RedisLockStatus s)) {
      return false;
    }
    return Objects.equals(holder, s.holder)
        && Objects.equals(fencingToken, s.fencingToken)
        && Objects.equals(reservedToken, s.reservedToken)
        && Objects.equals(acquiredAt, s.acquiredAt)
        && Objects.equals(expiresAt, s.expiresAt)
        && Objects.equals(instances, s.instances)
        && Objects.equals(observedGeneration, s.observedGeneration)
        && Objects.equals(conditions, s.conditions);
  }

  @Override
  public int hashCode() {
    return Objects.hash(holder, fencingToken, acquiredAt, expiresAt, observedGeneration);
  }
}
