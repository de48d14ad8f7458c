package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisConnectionRef;
import dev.baton.api.v1alpha1.RedisConnectionRef.SecretRef;
import dev.baton.api.v1alpha1.RedisKeys;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockSpec;
import dev.baton.client.BatonNames;
import dev.baton.client.GoDuration;
import dev.baton.client.LockKeys;
import dev.baton.operator.kube.LabelSelectors;
import dev.baton.operator.kube.Shown;
import io.fabric8.kubernetes.api.model.LabelSelector;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A RedisLock's spec, checked, with defaults applied. The CRD's schema and CEL rules refuse most
 * bad specs; this repeats them for API servers that skip CEL (and the mock server, which runs
 * none).
 *
 * @param redlock the Secret names of the Redlock instances, or empty for one Redis
 * @param redisSecret the Secret of the one Redis, or null for the operator's default
 * @param holderSelector the pods the operator grants the lock to, or null: applications take it
 * @param interval how often the operator renews a granted lock and looks at the lock otherwise
 */
public record LockSettings(
    LockKeys keys,
    Duration ttl,
    Duration interval,
    LabelSelector holderSelector,
    String redisSecret,
    List<String> redlock,
    String labelKey) {

  static final Duration MIN_TTL = Duration.ofSeconds(1);
  static final Duration MAX_TTL = Duration.ofHours(1);
  private static final Duration MIN_INTERVAL = Duration.ofMillis(100);
  private static final Duration MAX_INTERVAL = Duration.ofSeconds(10);
  private static final int MAX_LABEL_NAME = 63;

  public static LockSettings of(RedisLock lock) {
    RedisLockSpec spec = lock.getSpec();
    if (spec == null) {
      throw new IllegalArgumentException("spec is required");
    }
    String name = lock.getMetadata().getName();
    Duration ttl = ttlOf(spec);
    if (spec.getRedis() != null && spec.getRedlock() != null) {
      throw new IllegalArgumentException(
          "set spec.redis or spec.redlock, not both: one Redis or a Redlock quorum");
    }
    LockKeys keys = new LockKeys(key(lock));
    String redisSecret = null;
    if (spec.getRedis() != null) {
      redisSecret = secretName(spec.getRedis(), "spec.redis.secretRef.name");
    }
    List<String> redlock = List.of();
    if (spec.getRedlock() != null) {
      redlock = redlockSecrets(spec.getRedlock().getInstances());
    }
    LabelSelector selector = spec.getHolderSelector();
    if (selector != null) {
      checkHolderSelector(selector, name);
    }
    Duration interval = ttl.dividedBy(3);
    if (interval.compareTo(MIN_INTERVAL) < 0) {
      interval = MIN_INTERVAL;
    } else if (interval.compareTo(MAX_INTERVAL) > 0) {
      interval = MAX_INTERVAL;
    }
    return new LockSettings(
        keys, ttl, interval, selector, redisSecret, redlock, LockLabels.key(name));
  }

  /** spec.ttl, or its default: 1s to 1h. */
  private static Duration ttlOf(RedisLockSpec spec) {
    String ttlText = spec.getTtl() == null ? RedisLockSpec.DEFAULT_TTL : spec.getTtl();
    Duration ttl;
    try {
      ttl = GoDuration.parse(ttlText);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          "spec.ttl: '" + Shown.value(ttlText) + "' is not a duration such as 30s, 1m30s or 500ms");
    }
    if (ttl.compareTo(MIN_TTL) < 0 || ttl.compareTo(MAX_TTL) > 0) {
      throw new IllegalArgumentException("spec.ttl (" + ttlText + ") must be between 1s and 1h");
    }
    return ttl;
  }

  /** spec.key, or the lock's namespace/name. */
  private static String key(RedisLock lock) {
    String key =
        lock.getSpec().getKey() == null || lock.getSpec().getKey().isBlank()
            ? lock.getMetadata().getNamespace() + "/" + lock.getMetadata().getName()
            : lock.getSpec().getKey();
    // The schema's rules, repeated, on the default key too.
    String keyProblem = RedisKeys.problem("spec.key", key);
    if (keyProblem != null) {
      throw new IllegalArgumentException(keyProblem);
    }
    return key;
  }

  /** A holder selector selects some pods, and makes the lock's name a label key. */
  private static void checkHolderSelector(LabelSelector selector, String name) {
    String problem = LabelSelectors.problem(selector);
    if (problem != null) {
      throw new IllegalArgumentException(problem.replace("spec.selector", "spec.holderSelector"));
    }
    if (LabelSelectors.selectsEverything(selector)) {
      throw new IllegalArgumentException(
          "spec.holderSelector must not be empty: an empty selector selects every pod in the"
              + " namespace; leave holderSelector out to let applications take the lock");
    }
    if (name.length() > MAX_LABEL_NAME) {
      throw new IllegalArgumentException(
          "with spec.holderSelector the lock's name is a label key ("
              + BatonNames.LOCK_PREFIX
              + "<name>) and must be at most "
              + MAX_LABEL_NAME
              + " characters");
    }
  }

  /** The operator grants the lock (true) or only observes applications that take it. */
  public boolean grants() {
    return holderSelector != null;
  }

  public boolean isRedlock() {
    return !redlock.isEmpty();
  }

  private static List<String> redlockSecrets(List<RedisConnectionRef> instances) {
    int n = instances == null ? 0 : instances.size();
    if (n < 3) {
      throw new IllegalArgumentException("spec.redlock needs at least 3 instances, got " + n);
    }
    if (n % 2 == 0) {
      throw new IllegalArgumentException(
          "spec.redlock needs an odd number of instances, got "
              + n
              + ": with an even number two halves can each miss a majority");
    }
    List<String> names = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < n; i++) {
      String name =
          secretName(instances.get(i), "spec.redlock.instances[" + i + "].secretRef.name");
      if (!seen.add(name)) {
        throw new IllegalArgumentException(
            "spec.redlock names Secret " + name + " twice: the instances must be independent");
      }
      names.add(name);
    }
    return List.copyOf(names);
  }

  /**
   * The Secret's name, once it is one Kubernetes could hold: it is shown in messages that reach the
   * log, and a name the schema would refuse (say, with a line break) is shown escaped only.
   */
  private static String secretName(RedisConnectionRef ref, String field) {
    if (ref == null
        || ref.getSecretRef() == null
        || ref.getSecretRef().getName() == null
        || ref.getSecretRef().getName().isBlank()) {
      throw new IllegalArgumentException(field + " is required");
    }
    String name = ref.getSecretRef().getName();
    if (name.length() > SecretRef.MAX_NAME || !name.matches(SecretRef.NAME_PATTERN)) {
      throw new IllegalArgumentException(
          field + " '" + Shown.value(name) + "' is not a valid Secret name");
    }
    return name;
  }
}
