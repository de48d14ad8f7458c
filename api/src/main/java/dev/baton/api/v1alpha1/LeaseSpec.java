package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/** The Redis lease of an election: its time-to-live and how often the operator renews it. */
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "duration(self.renewInterval) < duration(self.ttl)",
    message = "renewInterval must be shorter than ttl")
@ValidationRule(
    value = "duration(self.ttl) >= duration('1s') && duration(self.ttl) <= duration('1h')",
    message = "ttl must be between 1s and 1h")
@ValidationRule(
    value = "duration(self.renewInterval) >= duration('100ms')",
    message = "renewInterval must be at least 100ms")
public class LeaseSpec {

  public static final String DEFAULT_TTL = "10s";
  public static final String DEFAULT_RENEW_INTERVAL = "3s";

  @Default(DEFAULT_TTL)
  @Size(max = 32)
  @Pattern(GoDuration.PATTERN)
  @JsonPropertyDescription("Time-to-live of the lease in Redis, a Go-style duration such as 10s.")
  private String ttl = DEFAULT_TTL;

  @Default(DEFAULT_RENEW_INTERVAL)
  @Size(max = 32)
  @Pattern(GoDuration.PATTERN)
  @JsonPropertyDescription("How often the lease is renewed; must be shorter than ttl.")
  private String renewInterval = DEFAULT_RENEW_INTERVAL;

  public LeaseSpec() {}

  public LeaseSpec(String ttl, String renewInterval) {
    this.ttl = ttl;
    this.renewInterval = renewInterval;
  }

  public String getTtl() {
    return ttl;
  }

  public void setTtl(String ttl) {
    this.ttl = ttl;
  }

  public String getRenewInterval() {
    return renewInterval;
  }

  public void setRenewInterval(String renewInterval) {
    this.renewInterval = renewInterval;
  }
}
