package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/** Where one Service that routes to the group's leader sends its traffic now. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RouteStatus {

  @JsonPropertyDescription("The Service's name.")
  private String service;

  @JsonPropertyDescription("The pods its EndpointSlices list as ready endpoints.")
  private List<String> endpoints = new ArrayList<>();

  @JsonPropertyDescription("True when it lists exactly the leader, and nothing else.")
  private Boolean routed;

  @JsonPropertyDescription("Why not, when routed is false.")
  private String message;

  public RouteStatus() {}

  public RouteStatus(String service, List<String> endpoints, boolean routed, String message) {
    this.service = service;
    this.endpoints = endpoints;
    this.routed = routed;
    this.message = message;
  }

  public String getService() {
    return service;
  }

  public void setService(String service) {
    this.service = service;
  }

  public List<String> getEndpoints() {
    return endpoints;
  }

  public void setEndpoints(List<String> endpoints) {
    this.endpoints = endpoints;
  }

  public Boolean getRouted() {
    return routed;
  }

  public void setRouted(Boolean routed) {
    this.routed = routed;
  }

  public String getMessage() {
    return message;
  }

  public void setMessage(String message) {
    this.message = message;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RouteStatus r
        && Objects.equals(service, r.service)
        && Objects.equals(endpoints, r.endpoints)
        && Objects.equals(routed, r.routed)
        && Objects.equals(message, r.message);
  }

  @Override
  public int hashCode() {
    return Objects.hash(service, endpoints, routed, message);
  }
}
