package dev.baton.operator.kube;

import dev.baton.api.v1alpha1.ConditionType;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Builds a resource's condition list. Each condition keeps its lastTransitionTime while its status
 * does not change, so a status patch happens only when something a reader cares about changed.
 *
 * <p>A condition this pass neither sets nor {@link #drop}s is carried over as it was: a path that
 * looks at only some of the resource (Redis down, an invalid spec) leaves what it did not look at
 * alone, with no list of what to keep that a new condition type could be missing from.
 */
public final class Conditions {

  private final List<Condition> previous;
  private final List<Condition> next = new ArrayList<>();
  private final java.util.Set<String> dropped = new java.util.HashSet<>();
  private final long generation;
  private final Clock clock;

  public Conditions(List<Condition> previous, Long generation, Clock clock) {
    this.previous = previous == null ? List.of() : previous;
    this.generation = generation == null ? 0 : generation;
    this.clock = clock;
  }

  public Conditions set(ConditionType type, boolean status, String reason, String message) {
    return set(type, status ? "True" : "False", reason, message);
  }

  /** A condition nobody can tell yet, such as routing when no Service routes to the leader. */
  public Conditions unknown(ConditionType type, String reason, String message) {
    return set(type, "Unknown", reason, message);
  }

  private Conditions set(ConditionType type, String s, String reason, String message) {
    next.removeIf(c -> c.getType().equals(type.name()));
    dropped.remove(type.name());
    String since =
        find(previous, type)
            .filter(c -> s.equals(c.getStatus()))
            .map(Condition::getLastTransitionTime)
            .orElse(clock.instant().truncatedTo(ChronoUnit.SECONDS).toString());
    next.add(
        new ConditionBuilder()
            .withType(type.name())
            .withStatus(s)
            .withReason(reason)
            // The CRDs require a message, as metav1.Condition does: an absent one fails the write.
            .withMessage(message == null ? "" : message)
            .withObservedGeneration(generation)
            .withLastTransitionTime(since)
            .build());
    return this;
  }

  /** Removes a condition that no longer applies (Paused once unpaused, say). */
  public Conditions drop(ConditionType type) {
    next.removeIf(c -> c.getType().equals(type.name()));
    dropped.add(type.name());
    return this;
  }

  /** What was set, and every earlier condition neither set nor dropped, by type. */
  public List<Condition> build() {
    List<Condition> out = new ArrayList<>(next);
    for (Condition c : previous) {
      String type = c.getType();
      if (!dropped.contains(type) && out.stream().noneMatch(n -> n.getType().equals(type))) {
        out.add(c);
      }
    }
    out.sort(java.util.Comparator.comparing(Condition::getType));
    return List.copyOf(out);
  }

  /**
   * The conditions to write, each with the lastTransitionTime the server already shows for the same
   * type and status. A reconcile that started from a cache one write behind would otherwise stamp a
   * condition anew, and its time would flip back and forth with every write.
   */
  public static List<Condition> sinceAsOnServer(List<Condition> onServer, List<Condition> next) {
    if (onServer == null || next == null) {
      return next;
    }
    List<Condition> out = new ArrayList<>(next.size());
    for (Condition c : next) {
      Condition same =
          onServer.stream()
              .filter(
                  s ->
                      Objects.equals(c.getType(), s.getType())
                          && Objects.equals(c.getStatus(), s.getStatus()))
              .findFirst()
              .orElse(null);
      if (same == null || Objects.equals(same.getLastTransitionTime(), c.getLastTransitionTime())) {
        out.add(c);
      } else {
        out.add(
            new ConditionBuilder(c).withLastTransitionTime(same.getLastTransitionTime()).build());
      }
    }
    return out;
  }

  public static Optional<Condition> find(List<Condition> conditions, ConditionType type) {
    if (conditions == null) {
      return Optional.empty();
    }
    return conditions.stream().filter(c -> type.name().equals(c.getType())).findFirst();
  }

  public static boolean isTrue(List<Condition> conditions, ConditionType type) {
    return find(conditions, type).map(c -> "True".equals(c.getStatus())).orElse(false);
  }
}
