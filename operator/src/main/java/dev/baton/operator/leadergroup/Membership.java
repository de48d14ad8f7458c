package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.client.BatonNames;
import dev.baton.operator.kube.LabelSelectors;
import dev.baton.operator.kube.Metadata;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Which pods of a namespace belong to a group. A pod that an older group with the same roleLabel
 * also selects belongs to that older group: this group reports a conflict and leaves it alone. Pods
 * that carry this group's annotation but no longer belong to it are strays to clean up.
 *
 * @param members candidate pods of this group
 * @param conflicts pod name to the name of the older group that owns it
 * @param strays pods this group labeled before that are no longer its members
 */
public record Membership(List<Pod> members, Map<String, String> conflicts, List<Pod> strays) {

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

  public static Membership of(
      LeaderGroup group, String roleLabel, List<Pod> podsInNamespace, List<LeaderGroup> others) {
    List<LeaderGroup> seniors =
        others.stream()
            .filter(o -> !Objects.equals(o.getMetadata().getUid(), group.getMetadata().getUid()))
            .filter(o -> o.getMetadata().getDeletionTimestamp() == null)
            .filter(o -> o.getSpec() != null && roleLabel.equals(roleLabelOf(o)))
            .filter(o -> SENIORITY.compare(o, group) < 0)
            .toList();
    List<Pod> members = new ArrayList<>();
    Map<String, String> conflicts = new LinkedHashMap<>();
    List<Pod> strays = new ArrayList<>();
    String name = group.getMetadata().getName();
    for (Pod pod : podsInNamespace) {
      Map<String, String> labels = pod.getMetadata().getLabels();
      boolean selected = LabelSelectors.matches(group.getSpec().getSelector(), labels);
      String owner =
          selected
              ? seniors.stream()
                  .filter(o -> LabelSelectors.matches(o.getSpec().getSelector(), labels))
                  .map(o -> o.getMetadata().getName())
                  .findFirst()
                  .orElse(null)
              : null;
      if (selected && owner == null) {
        members.add(pod);
      } else {
        if (owner != null) {
          conflicts.put(pod.getMetadata().getName(), owner);
        }
        if (name.equals(Metadata.annotation(pod, BatonNames.GROUP_ANNOTATION))) {
          strays.add(pod);
        }
      }
    }
    return new Membership(members, conflicts, strays);
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
