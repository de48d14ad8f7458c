package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.LabelSelector;

/** What a RedisLock asks for: its key, its time-to-live, who may hold it, and where it lives. */
@JsonClassDescription("The lock's key and time-to-live, who may hold it, and which Redis.")
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value = "!(has(self.redis) && has(self.redlock))",
    message = "set spec.redis or spec.redlock, not both")
// On spec, not on the optional field: a field's transition rule misses adding or removing it.
@ValidationRule(
    value = "has(self.key) == has(oldSelf.key) && (!has(self.key) || self.key == oldSelf.key)",
    message =
        "key is immutable: a new key would be a second lock beside the one held; delete the"
            + " RedisLock and create it again to change it")
public class RedisLockSpec {

  public static final String DEFAULT_TTL = "30s";

  @Size(min = 1, max = RedisKeys.MAX_LENGTH)
  @Pattern(RedisKeys.PATTERN)
  @ValidationRule(value = RedisKeys.NOT_RESERVED_RULE, message = RedisKeys.RESERVED_MESSAGE)
  @JsonPropertyDescription(
      "The lock's key in Redis (kept in the hash tag of baton:{key}:lock and baton:{key}:token);"
          + " default <namespace>/<name>. It must start with the RedisLock's namespace and a '/',"
          + " unless the operator allows a shared prefix (BATON_SHARED_KEY_PREFIXES), and no other"
          + " RedisLock or LeaderGroup of the cluster may use it. Immutable.")
  private String key;

  @Default(DEFAULT_TTL)
  @Pattern(GoDuration.PATTERN)
  @ValidationRule(
      value = "duration(self) >= duration('1s') && duration(self) <= duration('1h')",
      message = "ttl must be between 1s and 1h")
  @JsonPropertyDescription(
      "Time-to-live of the lock in Redis, a Go-style duration such as 30s; the holder (or the"
          + " operator for it) renews it well before.")
  private String ttl = DEFAULT_TTL;

  @JsonPropertyDescription(
      "Given: the operator grants the lock to one ready pod of this namespace that the selector"
          + " matches, labels it locks.baton.dev/<name>=held and moves the lock when it is not"
          + " ready. Absent: applications take the lock themselves and the operator observes,"
          + " reports and reaps it.")
  @SchemaFrom(type = SelectorSchema.class)
  @ValidationRule(
      value =
          "(has(self.matchLabels) && size(self.matchLabels) > 0)"
              + " || (has(self.matchExpressions) && size(self.matchExpressions) > 0)",
      message =
          "holderSelector must not be empty: an empty selector selects every pod in the"
              + " namespace; leave holderSelector out to let applications take the lock")
  private LabelSelector holderSelector;

  @JsonPropertyDescription(
      "One Redis (or Sentinel); default: the operator's own connection. Not with redlock.")
  private RedisConnectionRef redis;

  @JsonPropertyDescription(
      "A Redlock quorum over independent Redis masters, instead of one Redis. Not with redis.")
  private RedlockSpec redlock;

  public String getKey() {
    return key;
  }

  public void setKey(String key) {
    this.key = key;
  }

  public String getTtl() {
    return ttl;
  }

  public void setTtl(String ttl) {
    this.ttl = ttl;
  }

  public LabelSelector getHolderSelector() {
    return holderSelector;
  }

  public void setHolderSelector(LabelSelector holderSelector) {
    this.holderSelector = holderSelector;
  }

  public RedisConnectionRef getRedis() {
    return redis;
  }

  public void setRedis(RedisConnectionRef redis) {
    this.redis = redis;
  }

  public RedlockSpec getRedlock() {
    return redlock;
  }

  public void setRedlock(RedlockSpec redlock) {
    this.redlock = redlock;
  }
}
