package dev.baton.operator.tenancy;

import dev.baton.api.v1alpha1.RedisKeys;
import dev.baton.operator.kube.EventReason;
import java.util.List;

/**
 * Which Redis keys a namespace may name: its own, {@code <namespace>/...}, and those under the
 * prefixes the operator's configuration shares between namespaces ({@code
 * BATON_SHARED_KEY_PREFIXES}, for groups that span clusters sharing one Redis). The schema's rules
 * (characters, length, Baton's own prefixes) are {@link RedisKeys}'; this is what a CRD rule cannot
 * say, since CEL on a CRD does not see {@code metadata.namespace} (docs/design.md, "Multi-tenant
 * clusters").
 */
public final class KeyScope {

  /** The lock keys' conventional prefix, {@code locks/<namespace>/...}. */
  static final String LOCKS = "locks/";

  private final List<String> shared;

  /**
   * @param sharedPrefixes prefixes every namespace may use, each ending with '/'
   */
  public KeyScope(List<String> sharedPrefixes) {
    this.shared = List.copyOf(sharedPrefixes);
  }

  /** Whether a resource of {@code namespace} may use {@code key}: null when it may. */
  public Refusal refusal(String field, String namespace, String key) {
    if (RedisKeys.problem(field, key) != null) {
      // Refused by the spec's own checks, with their message, before this one is asked.
      return new Refusal("InvalidSpec", EventReason.InvalidSpec, RedisKeys.problem(field, key));
    }
    if (mayUse(namespace, key)) {
      return null;
    }
    String message =
        field
            + " '"
            + RedisKeys.shown(key)
            + "' is outside namespace "
            + namespace
            + ": a key must start with '"
            + namespace
            + "/' or 'locks/"
            + namespace
            + "/'"
            + (shared.isEmpty()
                ? " (the operator shares no prefix between namespaces)"
                : " or a prefix the operator shares (" + String.join(", ", shared) + ")");
    return new Refusal(Refusal.OUTSIDE_NAMESPACE, EventReason.InvalidSpec, message);
  }

  /**
   * The key is the namespace's own, or under a shared prefix; its form is checked apart. Under
   * {@value #LOCKS}, the second segment is always a namespace ({@code locks/shop/migration} is
   * shop's, as the documented RedisLock example has it), so the namespace named {@code locks} owns
   * {@code locks/locks/...} there and no other key under it.
   */
  boolean mayUse(String namespace, String key) {
    if (within(key, LOCKS + namespace + "/")) {
      return true;
    }
    if (within(key, namespace + "/") && !(namespace + "/").equals(LOCKS)) {
      return true;
    }
    return shared.stream().anyMatch(p -> within(key, p));
  }

  private static boolean within(String key, String prefix) {
    return key.length() > prefix.length() && key.startsWith(prefix);
  }
}
