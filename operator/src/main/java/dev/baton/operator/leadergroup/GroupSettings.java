package dev.baton.operator.leadergroup;

import dev.baton.operator.api.v1alpha1.GoDuration;
import dev.baton.operator.api.v1alpha1.LabelKeys;
import dev.baton.operator.api.v1alpha1.LeaderGroup;
import dev.baton.operator.api.v1alpha1.LeaderGroupSpec;
import dev.baton.operator.api.v1alpha1.LeaseSpec;
import dev.baton.operator.kube.LabelSelectors;
import dev.baton.operator.lease.LeaseKeys;
import java.time.Duration;

/**
 * A LeaderGroup's spec, checked and with defaults applied. The CRD schema refuses most bad specs;
 * this repeats its checks for API servers that skip CEL and for specs written before a rule existed.
 */
public record GroupSettings(
    String roleLabel,
    Duration ttl,
    Duration renewInterval,
    LeaseKeys keys,
    boolean paused,
    boolean protectLeader) {

  public static GroupSettings of(LeaderGroup group) {
    LeaderGroupSpec spec = group.getSpec();
    if (spec == null) {
      throw new IllegalArgumentException("spec is required");
    }
    String selectorProblem = LabelSelectors.problem(spec.getSelector());
    if (selectorProblem != null) {
      throw new IllegalArgumentException(selectorProblem);
    }
    String roleLabel =
        spec.getRoleLabel() == null ? LeaderGroupSpec.DEFAULT_ROLE_LABEL : spec.getRoleLabel();
    if (!LabelKeys.isValid(roleLabel)) {
      throw new IllegalArgumentException(
          "spec.roleLabel '" + roleLabel + "' is not a valid label key");
    }
    LeaseSpec lease = spec.getLease() == null ? new LeaseSpec() : spec.getLease();
    Duration ttl =
        duration("spec.lease.ttl", lease.getTtl() == null ? LeaseSpec.DEFAULT_TTL : lease.getTtl());
    Duration renew =
        duration(
            "spec.lease.renewInterval",
            lease.getRenewInterval() == null
                ? LeaseSpec.DEFAULT_RENEW_INTERVAL
                : lease.getRenewInterval());
    if (ttl.compareTo(Duration.ofSeconds(1)) < 0 || ttl.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException("spec.lease.ttl must be between 1s and 1h");
    }
    if (renew.compareTo(Duration.ofMillis(100)) < 0) {
      throw new IllegalArgumentException("spec.lease.renewInterval must be at least 100ms");
    }
    if (renew.compareTo(ttl) >= 0) {
      throw new IllegalArgumentException(
          "spec.lease.renewInterval (" + lease.getRenewInterval() + ") must be shorter than"
              + " spec.lease.ttl (" + lease.getTtl() + ")");
    }
    String key = spec.getElectionKey();
    if (key == null || key.isBlank()) {
      key = group.getMetadata().getNamespace() + "/" + group.getMetadata().getName();
    } else if (key.contains("{") || key.contains("}")) {
      throw new IllegalArgumentException(
          "spec.electionKey must not contain braces: Baton wraps it in a Redis hash tag");
    }
    if (spec.getRedis() != null
        && (spec.getRedis().getSecretRef() == null
            || spec.getRedis().getSecretRef().getName() == null
            || spec.getRedis().getSecretRef().getName().isBlank())) {
      throw new IllegalArgumentException("spec.redis.secretRef.name is required");
    }
    return new GroupSettings(
        roleLabel,
        ttl,
        renew,
        new LeaseKeys(key),
        Boolean.TRUE.equals(spec.getPaused()),
        !Boolean.FALSE.equals(spec.getProtectLeader()));
  }

  private static Duration duration(String field, String value) {
    try {
      return GoDuration.parse(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(field + ": " + e.getMessage());
    }
  }
}
