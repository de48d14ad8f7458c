package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.ValidationRule;
import java.util.ArrayList;
import java.util.List;

/** The independent Redis masters of a Redlock quorum: a lock is held when a majority holds it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(value = "size(self.instances) >= 3", message = "redlock needs at least 3 instances")
@ValidationRule(
    value = "size(self.instances) % 2 == 1",
    message = "redlock needs an odd number of instances, so that a majority is well defined")
public class RedlockSpec {

  @Required
  @JsonPropertyDescription(
      "At least 3 and an odd number of independent Redis masters (not replicas of each other),"
          + " each a Secret with key url and optional username and password.")
  private List<RedisConnectionRef> instances = new ArrayList<>();

  public RedlockSpec() {}

  public RedlockSpec(List<RedisConnectionRef> instances) {
    this.instances = instances;
  }

  public List<RedisConnectionRef> getInstances() {
    return instances;
  }

  public void setInstances(List<RedisConnectionRef> instances) {
    this.instances = instances;
  }
}
