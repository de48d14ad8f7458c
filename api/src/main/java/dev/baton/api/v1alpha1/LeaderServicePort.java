package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.IntOrString;

/** One port of a {@link LeaderService}, as in a Service. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class LeaderServicePort {

  @Size(max = 15)
  @Pattern("^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
  @JsonPropertyDescription("Port name; required when there are several ports.")
  private String name;

  @Required
  @Min(1)
  @Max(65535)
  @JsonPropertyDescription("The port the Service exposes.")
  private Integer port;

  @JsonPropertyDescription(
      "The leader pod's port: a number, or the name of a container port; default: port.")
  private IntOrString targetPort;

  @Default("TCP")
  @Pattern("^(TCP|UDP|SCTP)$")
  @JsonPropertyDescription("TCP, UDP or SCTP.")
  private String protocol = "TCP";

  public LeaderServicePort() {}

  public LeaderServicePort(String name, int port, IntOrString targetPort) {
    this.name = name;
    this.port = port;
    this.targetPort = targetPort;
  }

  public String getName() {
    return name;
  }

  public void setName(String name) {
    this.name = name;
  }

  public Integer getPort() {
    return port;
  }

  public void setPort(Integer port) {
    this.port = port;
  }

  public IntOrString getTargetPort() {
    return targetPort;
  }

  public void setTargetPort(IntOrString targetPort) {
    this.targetPort = targetPort;
  }

  public String getProtocol() {
    return protocol;
  }

  public void setProtocol(String protocol) {
    this.protocol = protocol;
  }
}
