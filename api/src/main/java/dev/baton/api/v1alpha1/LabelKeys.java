package dev.baton.api.v1alpha1;

/** The Kubernetes rules for label keys, shared by the schema and the operator's own checks. */
public final class LabelKeys {

  /** An optional DNS-subdomain prefix and a slash, then a name of at most 63 characters. */
  public static final String QUALIFIED_NAME_PATTERN =
      "^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?"
          + "[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$";

  private LabelKeys() {}

  public static boolean isValid(String key) {
    if (key == null || !key.matches(QUALIFIED_NAME_PATTERN)) {
      return false;
    }
    int slash = key.indexOf('/');
    return slash < 0 || slash <= 253;
  }
}
