package dev.baton.kubectl;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import dev.baton.api.v1alpha1.PendingFailover;
import dev.baton.api.v1alpha1.RouteStatus;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/**
 * What {@code kubectl baton status} reports, as data: printed as text for a person, or as JSON or
 * YAML ({@code -o}) for scripts, from the same values. Field names are part of the plugin's
 * contract (docs/api.md).
 */
final class StatusView {

  private StatusView() {}

  /** The whole answer: kind {@code BatonStatus}, the groups, and the locks (none for one group). */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  @JsonPropertyOrder({"kind", "groups", "locks"})
  record Document(String kind, List<Group> groups, List<Lock> locks) {}

  /**
   * One LeaderGroup's three views, conditions and last leadership changes; {@code agentImage} is
   * the operator's, while pods of the group ask for the agent.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Group(
      String namespace,
      String name,
      boolean paused,
      String roleLabel,
      String agentImage,
      Holder holder,
      PendingFailover pendingFailover,
      List<Condition> conditions,
      List<Pod> pods,
      List<RouteStatus> routing,
      List<Change> lastChanges) {}

  /** The Redis holder as the operator last recorded it in status. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Holder(String pod, Long term, String since) {}

  /**
   * A candidate pod: its role label, readiness, the term annotation the leader carries, node, and
   * its agent when it asks for one (null otherwise).
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Pod(
      String name,
      String role,
      boolean ready,
      boolean terminating,
      String term,
      String node,
      Agent agent) {}

  /**
   * The agent of a pod labeled {@code baton.dev/agent}: its mode (the label's value), the image it
   * runs (null when missing), and its state against the operator's agent image ({@code
   * status.agentImage}): {@code current}, {@code outdated}, {@code missing} (created while no
   * webhook answered), or {@code injected} while the operator has not recorded its image.
   */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Agent(String mode, String state, String image) {
    static final String CURRENT = "current";
    static final String OUTDATED = "outdated";
    static final String MISSING = "missing";
    static final String INJECTED = "injected";

    /** Whether the pod needs to be created again to run the operator's agent. */
    boolean needsRoll() {
      return MISSING.equals(state) || OUTDATED.equals(state);
    }
  }

  /** An Event that changed (or refused to change) leadership. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Change(String time, String reason, String message) {}

  /** A RedisLock's holder, token and expiry. */
  @JsonInclude(JsonInclude.Include.NON_NULL)
  record Lock(
      String namespace, String name, String holder, Long token, String expiresAt, String ready) {}
}
