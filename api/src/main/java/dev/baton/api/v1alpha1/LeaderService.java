package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import java.util.ArrayList;
import java.util.List;

/**
 * A Service the operator owns and routes itself: it has no selector, and the operator writes its
 * EndpointSlice with the leader pod's address, so one write moves the traffic.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class LeaderService {

  /** A DNS-1035 label, as Kubernetes requires of a Service name. */
  public static final String NAME_PATTERN = "^[a-z]([-a-z0-9]*[a-z0-9])?$";

  @Required
  @Size(min = 1, max = 63)
  @Pattern(NAME_PATTERN)
  @JsonPropertyDescription(
      "Name of the Service, in the group's namespace. The operator creates it (no selector) and"
          + " its EndpointSlice; both are deleted with the group.")
  private String name;

  @Required
  @Size(min = 1, max = 16)
  @JsonPropertyDescription("The Service's ports.")
  private List<LeaderServicePort> ports = new ArrayList<>();

  public LeaderService() {}

  public LeaderService(String name, List<LeaderServicePort> ports) {
    this.name = name;
    this.ports = ports;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public List<LeaderServicePort> getPorts() {
    return ports;
  }

  public void setPorts(List<LeaderServicePort> ports) {
    this.ports = ports;
  }
}
