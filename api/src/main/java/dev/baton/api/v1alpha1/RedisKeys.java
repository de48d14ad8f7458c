package dev.baton.api.v1alpha1;

/**
 * The rules for a Redis key a LeaderGroup or RedisLock names ({@code spec.electionKey}, {@code
 * spec.key}), shared by the schema and the operator's own checks. What the schema cannot say (the
 * key belongs to the resource's namespace, and no other resource holds it) is the operator's
 * (docs/design.md, "Multi-tenant clusters").
 */
public final class RedisKeys {

  /**
   * Letters, digits and {@code - _ . : /}, starting with a letter or a digit: no braces (Baton
   * wraps the key in a hash tag), no space or control character (keys are shown in logs and
   * messages), and nothing a Redis ACL key pattern reads as a wildcard ({@code * ? [ ] \}), so that
   * a per-key ACL rule names exactly one resource's keys.
   */
  public static final String PATTERN = "^[A-Za-z0-9][-A-Za-z0-9_.:/]*$";

  public static final int MAX_LENGTH = 253;

  /** The operator's own registration, {@code baton-operator/<cluster id>} (one replica mode). */
  public static final String OPERATOR_PREFIX = "baton-operator/";

  /**
   * CEL: the key is none of Baton's own. A key whose first part (up to the first '/') holds a ':'
   * is Baton's: the agent's gate keys are {@code gate:<namespace>/<group>}, and any internal key
   * added later takes that form; a tenant's key starts with its namespace, which holds no ':'.
   */
  public static final String NOT_RESERVED_RULE =
      "!self.startsWith('" + OPERATOR_PREFIX + "') && !self.matches('^[^/]*:')";

  public static final String RESERVED_MESSAGE =
      "the key must not start with baton-operator/ nor hold a ':' before its first '/': such keys"
          + " are Baton's own (the agent's gate:<namespace>/<group>, the operator's"
          + " baton-operator/<cluster id>)";

  private RedisKeys() {}

  /**
   * The schema's checks, for API servers that skip them and for a default key: why {@code key}
   * cannot be a key at all, or null. Never repeats a value that fails the pattern.
   *
   * @param field how the message names the field, e.g. {@code spec.electionKey}
   */
  public static String problem(String field, String key) {
    if (key == null || key.isEmpty()) {
      return field + " must not be empty";
    }
    if (key.length() > MAX_LENGTH) {
      return field + " must be at most " + MAX_LENGTH + " characters";
    }
    if (!key.matches(PATTERN)) {
      return field
          + " may hold only letters, digits and - _ . : / (starting with a letter or a digit): no"
          + " braces, spaces or wildcards";
    }
    if (key.startsWith(OPERATOR_PREFIX)) {
      return field
          + " '"
          + shown(key)
          + "' is reserved: keys under baton-operator/ are the operator's own registration";
    }
    int colon = key.indexOf(':');
    int slash = key.indexOf('/');
    if (colon >= 0 && (slash < 0 || colon < slash)) {
      return field
          + " '"
          + shown(key)
          + "' is reserved: a key holding ':' before its first '/' is Baton's own (the agent's"
          + " gate keys are gate:<namespace>/<group>)";
    }
    return null;
  }

  /** A key for a message, cut when long; only called on keys that match {@link #PATTERN}. */
  public static String shown(String key) {
    return key.length() <= 64 ? key : key.substring(0, 61) + "...";
  }
}
