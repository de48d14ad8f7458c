package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** One Redlock instance as the operator last saw it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RedisLockInstanceStatus {

  @JsonPropertyDescription("The instance's Secret name.")
  private String name;

  @JsonPropertyDescription("Whether the instance answered.")
  private Boolean reachable;

  @JsonPropertyDescription("Whether the instance holds the current holder's value.")
  private Boolean holds;

  public RedisLockInstanceStatus() {}

  public RedisLockInstanceStatus(String name, boolean reachable, boolean holds) {
    this.name = name;
    this.reachable = reachable;
    this.holds = holds;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public Boolean getReachable() {
    return reachable;
  }

  public void setReachable(Boolean reachable) {
    this.reachable = reachable;
  }

  public Boolean getHolds() {
    return holds;
  }

  public void setHolds(Boolean holds) {
    this.holds = holds;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RedisLockInstanceStatus s
        && Objects.equals(name, s.name)
        && Objects.equals(reachable, s.reachable)
        && Objects.equals(holds, s.holds);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, reachable, holds);
  }
}
