package dev.baton.operator.redislock;

import dev.baton.client.BatonNames;
import dev.baton.client.LockValues;
import java.util.Optional;

/**
 * What Baton writes for RedisLocks outside Redis: the holder pod's label and annotation key (the
 * names are in {@link BatonNames}), and the values the operator stores when it grants a lock.
 */
public final class LockLabels {

  /** Operator grants end in {@code :baton.<clusterId>.<random>} after the pod's identity. */
  static final String GRANT_MARK = "baton.";

  private LockLabels() {}

  public static String key(String lockName) {
    return BatonNames.LOCK_PREFIX + lockName;
  }

  /**
   * The value the operator writes when it grants a lock to a pod: the pod convention of
   * docs/api.md, whose random part names this operator's cluster, so that a restarted or second
   * replica adopts its own grants and reaping applies to them like to any pod's lock.
   */
  static String grantValue(String clusterId, String namespace, String pod, String uid) {
    return LockValues.pod(namespace, pod, uid, GRANT_MARK + clusterId + "." + LockValues.random());
  }

  /** The pod a value names when this cluster's operator granted it, else empty. */
  static Optional<LockValues.PodRef> grantedHere(String value, String clusterId) {
    String mark = GRANT_MARK + clusterId + ".";
    // The random part is 16 hex digits: a longer suffix is another cluster whose id extends ours.
    return LockValues.parsePod(value)
        .filter(p -> p.suffix().startsWith(mark) && p.suffix().length() == mark.length() + 16);
  }

  /** Whether the value is a grant by some operator (this cluster's or another's). */
  static boolean isGrant(String value) {
    return LockValues.parsePod(value).map(p -> p.suffix().startsWith(GRANT_MARK)).orElse(false);
  }
}
