package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.ConditionType;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.client.BatonNames;
import dev.baton.operator.kube.Conditions;
import dev.baton.operator.kube.LabelSelectors;
import dev.baton.operator.kube.Metadata;
import dev.baton.operator.tenancy.RoleLabelScope;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Which pods of a namespace belong to a group. A pod that carries another group's mark (its {@code
 * baton.dev/leader-group} annotation) while that group exists, or that an older group also selects,
 * whatever its role label, belongs to that group: this group reports a conflict and never writes on
 * it. A pod the group's role label may not go on (a key outside baton.dev/ and the allowed
 * prefixes, on a pod that did not opt in) is left alone too. Pods that carry this group's mark but
 * no longer belong to it are strays to clean up: removing a group's own marks takes nothing from
 * anyone.
 *
 * @param members candidate pods of this group
 * @param conflicts pod name to the name of the group that owns it
 * @param strays pods this group labeled before that are no longer its members
 * @param notAllowed selected pods that did not allow the group's role label
 */
public record Membership(
    List<Pod> members, Map<String, String> conflicts, List<Pod> strays, List<String> notAllowed) {

  public Membership(List<Pod> members, Map<String, String> conflicts, List<Pod> strays) {
    this(members, conflicts, strays, List.of());
  }

  /**
   * Earlier creation wins; the name breaks ties, so every replica orders groups the same way. The
   * API server writes creationTimestamp as fixed-width RFC 3339 UTC ("2026-11-29T07:00:00Z"), so
   * the strings sort as the instants do, without parsing on every comparison.
   */
  static final Comparator<LeaderGroup> SENIORITY =
      Comparator.comparing(
              (LeaderGroup g) -> g.getMetadata().getCreationTimestamp(),
              Comparator.nullsLast(Comparator.naturalOrder()))
          .thenComparing(g -> g.getMetadata().getName());

  /**
   * @param others the groups that may select these pods
   * @param groupExists whether a group of that name exists in the namespace (deleted or not)
   */
  public static Membership of(
      LeaderGroup group,
      String roleLabel,
      List<Pod> podsInNamespace,
      List<LeaderGroup> others,
      Predicate<String> groupExists,
      RoleLabelScope roleLabels) {
    List<LeaderGroup> seniors =
        others.stream()
            .filter(o -> !Objects.equals(o.getMetadata().getUid(), group.getMetadata().getUid()))
            .filter(o -> o.getMetadata().getDeletionTimestamp() == null)
            .filter(o -> o.getSpec() != null && o.getSpec().getSelector() != null)
            .filter(o -> SENIORITY.compare(o, group) < 0)
            .filter(Membership::mayClaim)
            .toList();
    List<Pod> members = new ArrayList<>();
    Map<String, String> conflicts = new LinkedHashMap<>();
    List<Pod> strays = new ArrayList<>();
    List<String> notAllowed = new ArrayList<>();
    String name = group.getMetadata().getName();
    for (Pod pod : podsInNamespace) {
      Map<String, String> labels = pod.getMetadata().getLabels();
      boolean selected = LabelSelectors.matches(group.getSpec().getSelector(), labels);
      String owner = selected ? owner(pod, name, seniors, groupExists) : null;
      boolean allowed = selected && roleLabels.mayLabel(pod, roleLabel);
      if (selected && owner == null && allowed) {
        members.add(pod);
        continue;
      }
      if (owner != null) {
        conflicts.put(pod.getMetadata().getName(), owner);
      } else if (selected) {
        notAllowed.add(pod.getMetadata().getName());
      }
      if (name.equals(Metadata.annotation(pod, BatonNames.GROUP_ANNOTATION))) {
        strays.add(pod);
      }
    }
    return new Membership(members, conflicts, strays, notAllowed);
  }

  /**
   * The group a selected pod belongs to instead of this one: the one whose mark it carries, while
   * that group exists (its marks are never overwritten), else the oldest older group that selects
   * it; null when it is this group's.
   */
  private static String owner(
      Pod pod, String name, List<LeaderGroup> seniors, Predicate<String> groupExists) {
    String marked = Metadata.annotation(pod, BatonNames.GROUP_ANNOTATION);
    if (marked != null && !marked.equals(name) && groupExists.test(marked)) {
      return marked;
    }
    Map<String, String> labels = pod.getMetadata().getLabels();
    return seniors.stream()
        .filter(o -> matches(o, labels))
        .min(SENIORITY)
        .map(o -> o.getMetadata().getName())
        .orElse(null);
  }

  /**
   * A group the operator refuses (its spec, or its key) writes on no pod, so it claims none: an
   * older group with an empty selector would otherwise keep every later group of the namespace from
   * its pods. The marks it left while it was valid are still its own.
   */
  private static boolean mayClaim(LeaderGroup other) {
    if (other.getStatus() != null
        && Conditions.isTrue(other.getStatus().getConditions(), ConditionType.Invalid)) {
      return false;
    }
    try {
      GroupSettings.of(other);
      return true;
    } catch (IllegalArgumentException invalid) {
      return false;
    }
  }

  private static boolean matches(LeaderGroup group, Map<String, String> labels) {
    try {
      return LabelSelectors.matches(group.getSpec().getSelector(), labels);
    } catch (IllegalArgumentException invalidSelector) {
      return false;
    }
  }

  static String roleLabelOf(LeaderGroup g) {
    String r = g.getSpec().getRoleLabel();
    return r == null ? LeaderGroupSpec.DEFAULT_ROLE_LABEL : r;
  }

  /** The term a pod's annotation shows (it led with it), or 0. */
  static long term(Pod pod) {
    String t = Metadata.annotation(pod, BatonNames.TERM_ANNOTATION);
    try {
      return t == null ? 0 : Long.parseLong(t.trim());
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
