package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Objects;

/** A not-ready leader kept for spec.failoverDelay: when leadership moves unless it recovers. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PendingFailover {

  @JsonPropertyDescription("The leader pod that is not ready.")
  private String pod;

  @JsonPropertyDescription("Since when the operator has seen it not ready (RFC 3339).")
  private String notReadySince;

  @JsonPropertyDescription("When leadership moves away if it is still not ready (RFC 3339).")
  private String failoverAt;

  public PendingFailover() {}

  public PendingFailover(String pod, String notReadySince, String failoverAt) {
    this.pod = pod;
    this.notReadySince = notReadySince;
    this.failoverAt = failoverAt;
  }

  public String getPod() {
    return pod;
  }

  public void setPod(String pod) {
    this.pod = pod;
  }

  public String getNotReadySince() {
    return notReadySince;
  }

  public void setNotReadySince(String notReadySince) {
    this.notReadySince = notReadySince;
  }

  public String getFailoverAt() {
    return failoverAt;
  }

  public void setFailoverAt(String failoverAt) {
    this.failoverAt = failoverAt;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof PendingFailover p
        && Objects.equals(pod, p.pod)
        && Objects.equals(notReadySince, p.notReadySince)
        && Objects.equals(failoverAt, p.failoverAt);
  }

  @Override
  public int hashCode() {
    return Objects.hash(pod, notReadySince, failoverAt);
  }
}
