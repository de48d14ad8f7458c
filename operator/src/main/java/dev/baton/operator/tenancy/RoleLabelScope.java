package dev.baton.operator.tenancy;

import dev.baton.client.BatonNames;
import dev.baton.operator.kube.Metadata;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Arrays;
import java.util.List;

/**
 * Which pods a group may write its role label on. A key under {@code baton.dev/} (the domain Baton
 * owns; not its subdomains, {@code locks.baton.dev/} holds the locks' holder labels) or under a
 * prefix the operator allows ({@code BATON_ROLE_LABEL_PREFIXES}) goes on every member; any other
 * key only on a pod that opts in with the annotation {@code baton.dev/allow-role-label: <key>}. So
 * a user who may create LeaderGroups but not edit pods cannot have the operator rewrite a label
 * another controller owns ({@code app}, {@code pod-template-hash}, a Service's selector).
 */
public final class RoleLabelScope {

  static final String BATON_PREFIX = "baton.dev/";

  private final List<String> prefixes;

  /**
   * @param allowedPrefixes label-key prefixes allowed besides baton.dev/, each ending with '/'
   */
  public RoleLabelScope(List<String> allowedPrefixes) {
    this.prefixes = List.copyOf(allowedPrefixes);
  }

  /** The key may go on every member, without the pods' consent. */
  public boolean confined(String roleLabel) {
    return roleLabel.startsWith(BATON_PREFIX) || prefixes.stream().anyMatch(roleLabel::startsWith);
  }

  /** Whether the group may write {@code roleLabel} on this pod. */
  public boolean mayLabel(Pod pod, String roleLabel) {
    if (confined(roleLabel)) {
      return true;
    }
    String allowed = Metadata.annotation(pod, BatonNames.ALLOW_ROLE_LABEL_ANNOTATION);
    return allowed != null
        && Arrays.stream(allowed.split(",")).map(String::trim).anyMatch(roleLabel::equals);
  }
}
