package dev.baton.operator.tenancy;

import java.util.List;

/**
 * What a namespace tenant may make the operator write, for both controllers: the Redis keys it may
 * claim ({@link KeyClaims}, with the {@link KeyScope} of the operator's configuration) and the pods
 * its role label may go on ({@link RoleLabelScope}).
 */
public record Tenancy(KeyClaims keys, RoleLabelScope roleLabels) {

  /**
   * @param sharedKeyPrefixes {@code BATON_SHARED_KEY_PREFIXES}
   * @param roleLabelPrefixes {@code BATON_ROLE_LABEL_PREFIXES}
   */
  public static Tenancy of(List<String> sharedKeyPrefixes, List<String> roleLabelPrefixes) {
    return new Tenancy(
        new KeyClaims(new KeyScope(sharedKeyPrefixes)), new RoleLabelScope(roleLabelPrefixes));
  }
}
