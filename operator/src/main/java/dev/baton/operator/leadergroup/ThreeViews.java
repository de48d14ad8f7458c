package dev.baton.operator.leadergroup;

import java.util.Set;
import java.util.TreeSet;

/**
 * The three views of docs/design.md, "Three views agree": who Redis says holds the lease, which
 * pods carry the leader label, and which pods the leader Services route to must name the same
 * single pod (or nobody). This compares them; timing (a disagreement must outlive a renew interval
 * before anyone is alarmed) is the caller's.
 *
 * @param holder the pod Redis names for this cluster, or null when nobody here holds the lease
 * @param labeled the group's pods labeled leader
 * @param routed the pods behind the group's leader Services (null when there is no such Service)
 */
public record ThreeViews(String holder, Set<String> labeled, Set<String> routed) {

  /** Null when the views agree, else a sentence naming all three. */
  public String disagreement() {
    Set<String> expected = holder == null ? Set.of() : Set.of(holder);
    boolean labelsAgree = labeled.equals(expected);
    boolean routesAgree = routed == null || routed.equals(expected);
    if (labelsAgree && routesAgree) {
      return null;
    }
    return "Redis holder "
        + (holder == null ? "none" : holder)
        + ", pods labeled leader "
        + new TreeSet<>(labeled)
        + (routed == null ? "" : ", leader Service endpoints " + new TreeSet<>(routed));
  }
}
