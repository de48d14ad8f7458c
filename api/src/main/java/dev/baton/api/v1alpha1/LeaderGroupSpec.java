package dev.baton.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonClassDescription;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.SchemaFrom;
import io.fabric8.generator.annotation.Default;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;
import io.fabric8.kubernetes.api.model.LabelSelector;

/** What a LeaderGroup asks for: which pods run for leader, and how the lease behaves. */
@JsonClassDescription("Which pods run for leader, how the Redis lease behaves, and which Redis.")
@JsonInclude(JsonInclude.Include.NON_NULL)
@ValidationRule(
    value =
        "!has(self.roleLabel) || !has(self.selector.matchLabels)"
            + " || !(self.roleLabel in self.selector.matchLabels)",
    message =
        "roleLabel must not be a label the selector matches on: labeling the pods would change"
            + " which pods are selected")
// A rule on spec, not on the optional field: a transition rule on a field runs only when the old
// and the new object both have it, so adding or removing the key would go unchecked.
@ValidationRule(
    value =
        "has(self.electionKey) == has(oldSelf.electionKey)"
            + " && (!has(self.electionKey) || self.electionKey == oldSelf.electionKey)",
    message =
        "electionKey is immutable: a new key would start a second election beside the running"
            + " one; delete the LeaderGroup and create it again to change it")
public class LeaderGroupSpec {

  public static final String DEFAULT_ROLE_LABEL = "baton.dev/role";

  @Required
  @ValidationRule(
      value =
          "(has(self.matchLabels) && size(self.matchLabels) > 0)"
              + " || (has(self.matchExpressions) && size(self.matchExpressions) > 0)",
      message = "selector must not be empty: an empty selector selects every pod in the namespace")
  @JsonPropertyDescription("The candidate pods, in the LeaderGroup's namespace.")
  @SchemaFrom(type = SelectorSchema.class)
  private LabelSelector selector;

  @JsonPropertyDescription("Lease time-to-live and renew interval.")
  private LeaseSpec lease = new LeaseSpec();

  @Default(DEFAULT_ROLE_LABEL)
  @Size(max = 317)
  @Pattern(LabelKeys.QUALIFIED_NAME_PATTERN)
  @ValidationRule(
      value = "self == oldSelf",
      message =
          "roleLabel is immutable: the pods keep the old label, which Services may still select;"
              + " delete the LeaderGroup and create it again to change it")
  @JsonPropertyDescription(
      "Label key put on every candidate pod, with the value 'leader' or 'follower'. A key outside"
          + " baton.dev/ (and the prefixes the operator allows, BATON_ROLE_LABEL_PREFIXES) is"
          + " written only on pods annotated baton.dev/allow-role-label with it. Immutable.")
  private String roleLabel = DEFAULT_ROLE_LABEL;

  @Size(min = 1, max = RedisKeys.MAX_LENGTH)
  @Pattern(RedisKeys.PATTERN)
  @ValidationRule(value = RedisKeys.NOT_RESERVED_RULE, message = RedisKeys.RESERVED_MESSAGE)
  @JsonPropertyDescription(
      "The election's key in Redis; default <namespace>/<name>. It must start with the"
          + " LeaderGroup's namespace and a '/', unless the operator allows a shared prefix"
          + " (BATON_SHARED_KEY_PREFIXES), and no other LeaderGroup or RedisLock of the cluster may"
          + " use it. Groups in several clusters that share one Redis and one key run one election"
          + " together. Immutable.")
  private String electionKey;

  @JsonPropertyDescription("The Redis to use; default: the operator's own connection.")
  private RedisConnectionRef redis;

  @Default("false")
  @JsonPropertyDescription(
      "true: leadership is frozen for maintenance: nobody is elected and labels are left as they"
          + " are, but the current leader's lease is still renewed while its pod exists."
          + " Condition Paused=True says so; Ready keeps meaning 'has a leader'.")
  private Boolean paused = false;

  @Default("true")
  @JsonPropertyDescription(
      "Put a high controller.kubernetes.io/pod-deletion-cost on the leader, so a scale-down"
          + " removes followers first.")
  private Boolean protectLeader = true;

  @JsonPropertyDescription(
      "Optional: a Service the operator owns and routes itself, writing its EndpointSlice with"
          + " the leader's address (one write per leader change, no EndpointSlice controller hop)."
          + " Without it, route with a Service selecting the role label.")
  private LeaderService service;

  @Default("0s")
  @Size(max = 32)
  @Pattern(GoDuration.PATTERN)
  @ValidationRule(
      value = "duration(self) <= duration('1h')",
      message = "failoverDelay must be at most 1h")
  @JsonPropertyDescription(
      "How long a leader may stay not ready before leadership moves away (flap damping); default"
          + " 0s: at once. Deletion, termination and node loss move it at once regardless.")
  private String failoverDelay = "0s";

  public LabelSelector getSelector() {
    return selector;
  }

  public void setSelector(LabelSelector selector) {
    this.selector = selector;
  }

  public LeaseSpec getLease() {
    return lease;
  }

  public void setLease(LeaseSpec lease) {
    this.lease = lease;
  }

  public String getRoleLabel() {
    return roleLabel;
  }

  public void setRoleLabel(String roleLabel) {
    this.roleLabel = roleLabel;
  }

  public String getElectionKey() {
    return electionKey;
  }

  public void setElectionKey(String electionKey) {
    this.electionKey = electionKey;
  }

  public RedisConnectionRef getRedis() {
    return redis;
  }

  public void setRedis(RedisConnectionRef redis) {
    this.redis = redis;
  }

  public Boolean getPaused() {
    return paused;
  }

  public void setPaused(Boolean paused) {
    this.paused = paused;
  }

  public LeaderService getService() {
    return service;
  }

  public void setService(LeaderService service) {
    this.service = service;
  }

  public String getFailoverDelay() {
    return failoverDelay;
  }

  public void setFailoverDelay(String failoverDelay) {
    this.failoverDelay = failoverDelay;
  }

  public Boolean getProtectLeader() {
    return protectLeader;
  }

  public void setProtectLeader(Boolean protectLeader) {
    this.protectLeader = protectLeader;
  }
}
