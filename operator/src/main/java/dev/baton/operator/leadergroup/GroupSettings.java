package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LabelKeys;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.api.v1alpha1.LeaderService;
import dev.baton.api.v1alpha1.LeaderServicePort;
import dev.baton.api.v1alpha1.LeaseSpec;
import dev.baton.api.v1alpha1.RedisConnectionRef.SecretRef;
import dev.baton.api.v1alpha1.RedisKeys;
import dev.baton.client.BatonNames;
import dev.baton.client.ElectionKeys;
import dev.baton.client.GoDuration;
import dev.baton.operator.kube.LabelSelectors;
import dev.baton.operator.kube.Shown;
import io.fabric8.kubernetes.api.model.IntOrString;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A LeaderGroup's spec, checked and with defaults applied. The CRD schema refuses most bad specs;
 * this repeats its checks for API servers that skip CEL and for specs written before a rule
 * existed.
 */
public record GroupSettings(
    String roleLabel,
    Duration ttl,
    Duration renewInterval,
    ElectionKeys keys,
    boolean paused,
    boolean protectLeader,
    Duration failoverDelay,
    LeaderService service) {

  public static GroupSettings of(LeaderGroup group) {
    LeaderGroupSpec spec = group.getSpec();
    if (spec == null) {
      throw new IllegalArgumentException("spec is required");
    }
    checkSelector(spec);
    String roleLabel = roleLabelOf(spec);
    LeaseTimes lease = leaseTimes(spec);
    String key = electionKey(group);
    checkRedis(spec);
    String delayText = spec.getFailoverDelay() == null ? "0s" : spec.getFailoverDelay();
    Duration failoverDelay = duration("spec.failoverDelay", delayText);
    if (failoverDelay.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException("spec.failoverDelay must be at most 1h");
    }
    checkService(spec.getService());
    return new GroupSettings(
        roleLabel,
        lease.ttl(),
        lease.renew(),
        new ElectionKeys(key),
        Boolean.TRUE.equals(spec.getPaused()),
        !Boolean.FALSE.equals(spec.getProtectLeader()),
        failoverDelay,
        spec.getService());
  }

  private static void checkSelector(LeaderGroupSpec spec) {
    String selectorProblem = LabelSelectors.problem(spec.getSelector());
    if (selectorProblem != null) {
      throw new IllegalArgumentException(selectorProblem);
    }
    if (LabelSelectors.selectsEverything(spec.getSelector())) {
      throw new IllegalArgumentException(
          "spec.selector must not be empty: an empty selector selects every pod in the"
              + " namespace; name the candidates with matchLabels or matchExpressions");
    }
  }

  /** spec.roleLabel, or its default: a valid label key the selector does not match on. */
  private static String roleLabelOf(LeaderGroupSpec spec) {
    String roleLabel =
        spec.getRoleLabel() == null ? LeaderGroupSpec.DEFAULT_ROLE_LABEL : spec.getRoleLabel();
    checkRoleLabel(roleLabel);
    if (LabelSelectors.keys(spec.getSelector()).contains(roleLabel)) {
      throw new IllegalArgumentException(
          "spec.roleLabel '"
              + roleLabel
              + "' must not be a label the selector matches on:"
              + " labeling the pods would change which pods are selected");
    }
    return roleLabel;
  }

  private record LeaseTimes(Duration ttl, Duration renew) {}

  /** spec.lease, or its defaults: a TTL of 1s to 1h, renewed every 100ms or more, within it. */
  private static LeaseTimes leaseTimes(LeaderGroupSpec spec) {
    LeaseSpec lease = spec.getLease() == null ? new LeaseSpec() : spec.getLease();
    String ttlText = lease.getTtl() == null ? LeaseSpec.DEFAULT_TTL : lease.getTtl();
    String renewText =
        lease.getRenewInterval() == null
            ? LeaseSpec.DEFAULT_RENEW_INTERVAL
            : lease.getRenewInterval();
    Duration ttl = duration("spec.lease.ttl", ttlText);
    Duration renew = duration("spec.lease.renewInterval", renewText);
    if (ttl.compareTo(Duration.ofSeconds(1)) < 0 || ttl.compareTo(Duration.ofHours(1)) > 0) {
      throw new IllegalArgumentException("spec.lease.ttl must be between 1s and 1h");
    }
    if (renew.compareTo(Duration.ofMillis(100)) < 0) {
      throw new IllegalArgumentException("spec.lease.renewInterval must be at least 100ms");
    }
    if (renew.compareTo(ttl) >= 0) {
      throw new IllegalArgumentException(
          "spec.lease.renewInterval ("
              + renewText
              + ") must be shorter than"
              + " spec.lease.ttl ("
              + ttlText
              + ")");
    }
    return new LeaseTimes(ttl, renew);
  }

  /** spec.electionKey, or the group's namespace/name. */
  private static String electionKey(LeaderGroup group) {
    String key = group.getSpec().getElectionKey();
    if (key == null || key.isBlank()) {
      key = group.getMetadata().getNamespace() + "/" + group.getMetadata().getName();
    }
    // The schema's rules, repeated; the default key is checked too (a namespace named
    // baton-operator cannot use the operator's registration keys).
    String keyProblem = RedisKeys.problem("spec.electionKey", key);
    if (keyProblem != null) {
      throw new IllegalArgumentException(keyProblem);
    }
    return key;
  }

  private static void checkRedis(LeaderGroupSpec spec) {
    if (spec.getRedis() != null
        && (spec.getRedis().getSecretRef() == null
            || spec.getRedis().getSecretRef().getName() == null
            || spec.getRedis().getSecretRef().getName().isBlank())) {
      throw new IllegalArgumentException("spec.redis.secretRef.name is required");
    }
    if (spec.getRedis() != null
        && !(spec.getRedis().getSecretRef().getName().matches(SecretRef.NAME_PATTERN)
            && spec.getRedis().getSecretRef().getName().length() <= SecretRef.MAX_NAME)) {
      throw new IllegalArgumentException(
          "spec.redis.secretRef.name '"
              + shown(spec.getRedis().getSecretRef().getName())
              + "' is not a valid Secret name");
    }
  }

  /**
   * The leader's failover-delay annotation: the delay as the operator counts it, in the largest of
   * s, ms and ns that says it exactly ({@link GoDuration} reads it back), or {@code paused} while
   * leadership is frozen, which keeps even a not-ready leader.
   */
  public String failoverDelayAnnotation() {
    if (paused) {
      return BatonNames.FAILOVER_PAUSED;
    }
    long ns = failoverDelay.toNanos();
    if (ns % 1_000_000 != 0) {
      return ns + "ns";
    }
    long ms = ns / 1_000_000;
    return ms % 1000 == 0 ? ms / 1000 + "s" : ms + "ms";
  }

  /** What the schema says of spec.service, and what Kubernetes requires of a Service's ports. */
  private static void checkService(LeaderService service) {
    if (service == null) {
      return;
    }
    String name = service.getName();
    if (name == null || name.length() > 63 || !name.matches(LeaderService.NAME_PATTERN)) {
      throw new IllegalArgumentException(
          "spec.service.name '"
              + shown(name)
              + "' is not a valid Service name (lowercase letters, digits and '-', starting with"
              + " a letter, at most 63 characters)");
    }
    List<LeaderServicePort> ports = service.getPorts();
    if (ports == null || ports.isEmpty()) {
      throw new IllegalArgumentException("spec.service.ports must list at least one port");
    }
    Set<String> names = new HashSet<>();
    for (LeaderServicePort port : ports) {
      if (port.getPort() == null || port.getPort() < 1 || port.getPort() > 65535) {
        throw new IllegalArgumentException("spec.service.ports: every port needs a port 1-65535");
      }
      if (ports.size() > 1 && (port.getName() == null || port.getName().isEmpty())) {
        throw new IllegalArgumentException(
            "spec.service.ports: every port needs a name when there are several");
      }
      if (port.getName() != null && !names.add(port.getName())) {
        throw new IllegalArgumentException(
            "spec.service.ports: port name '" + shown(port.getName()) + "' is used twice");
      }
      IntOrString target = port.getTargetPort();
      if (target != null
          && target.getIntVal() != null
          && (target.getIntVal() < 1 || target.getIntVal() > 65535)) {
        throw new IllegalArgumentException(
            "spec.service.ports: targetPort " + target.getIntVal() + " is not 1-65535");
      }
    }
  }

  /**
   * The safety-net timer: events and the renewer drive everything, so this only catches what no
   * event announced. Twenty renew intervals, at least 60 s, at most 10 min.
   */
  Duration resync() {
    long nanos = renewInterval.toNanos() * 20;
    return Duration.ofNanos(
        Math.min(
            Math.max(nanos, Duration.ofSeconds(60).toNanos()), Duration.ofMinutes(10).toNanos()));
  }

  private static Duration duration(String field, String value) {
    try {
      return GoDuration.parse(value);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          field + ": '" + shown(value) + "' is not a duration such as 10s, 1m30s or 500ms");
    }
  }

  /**
   * The schema's pattern, plus what a pattern cannot say: the prefix is a DNS subdomain of at most
   * 253 characters whose parts have at most 63 (the API server would refuse such pod labels).
   */
  private static void checkRoleLabel(String roleLabel) {
    if (!LabelKeys.isValid(roleLabel)) {
      throw new IllegalArgumentException(
          "spec.roleLabel '" + shown(roleLabel) + "' is not a valid label key");
    }
    int slash = roleLabel.indexOf('/');
    if (slash > 0) {
      for (String label : roleLabel.substring(0, slash).split("\\.")) {
        if (label.length() > 63) {
          throw new IllegalArgumentException(
              "spec.roleLabel '"
                  + shown(roleLabel)
                  + "' is not a valid label key: a part of"
                  + " its prefix is longer than 63 characters");
        }
      }
    }
  }

  /** A user's value for a message: long ones are cut, control characters escaped. */
  private static String shown(String value) {
    return Shown.value(value);
  }
}
