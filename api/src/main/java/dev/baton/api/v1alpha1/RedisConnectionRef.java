package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;

/** Points at a Secret with a Redis connection: keys url, and optionally username and password. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class RedisConnectionRef {

  @Required
  @JsonPropertyDescription(
      "Secret in the same namespace with key url (redis://, rediss:// or redis-sentinel://) and"
          + " optional keys username and password.")
  private SecretRef secretRef;

  public RedisConnectionRef() {}

  public RedisConnectionRef(String secretName) {
    this.secretRef = new SecretRef(secretName);
  }

  public SecretRef getSecretRef() {
    return secretRef;
  }

  public void setSecretRef(SecretRef secretRef) {
    this.secretRef = secretRef;
  }

  /** A Secret named in the resource's own namespace. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public static class SecretRef {

    /** A DNS subdomain (RFC 1123), as Kubernetes requires of a Secret's name. */
    public static final String NAME_PATTERN =
        "^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$";

    public static final int MAX_NAME = 253;

    @Required
    @Size(min = 1, max = MAX_NAME)
    @Pattern(NAME_PATTERN)
    @JsonPropertyDescription("Name of the Secret, in the resource's namespace.")
    private String name;

    public SecretRef() {}

    public SecretRef(String name) {
      this.name = name;
    }

    public String getName() {
      return name;
    }

    public void setName(String name) {
      this.name = name;
    }
  }
}
