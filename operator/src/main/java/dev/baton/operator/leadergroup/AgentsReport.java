package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.ConditionType;
import dev.baton.operator.injection.AgentNames;
import dev.baton.operator.injection.AgentPods;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.kube.EventRecorder;
import dev.baton.operator.metrics.BatonMetrics;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * The AgentInjected condition, its Events and the agent pods metric of a group whose pods ask for
 * the agent: each pod that runs without it (created while no webhook answered) told once by an
 * Event naming it, pods on another agent image than the operator's told as outdated, and the
 * agents' permissions that could not be written.
 */
final class AgentsReport {

  /**
   * What the reconcile found of the group's agents.
   *
   * @param image the agent image this operator injects
   * @param problem what could not be written of their Role, RoleBinding and NetworkPolicy, or null
   */
  record Found(AgentPods pods, String image, String problem) {}

  private final EventRecorder events;
  private final BatonMetrics metrics;

  /** The pods each group has told of by an Event, so a pod is told of once, not every reconcile. */
  private final Map<ResourceID, Set<String>> told = new ConcurrentHashMap<>();

  AgentsReport(EventRecorder events, BatonMetrics metrics) {
    this.events = events;
    this.metrics = metrics;
  }

  void report(GroupReport r, Found found) {
    if (found == null) {
      return;
    }
    AgentPods pods = found.pods();
    if (!pods.any()) {
      r.conditions.drop(ConditionType.AgentInjected);
      r.agentImage = null;
      metrics.agentPods(r.ns(), r.name(), null, null);
      told.remove(r.id);
      return;
    }
    metrics.agentPods(r.ns(), r.name(), pods.missing().size(), pods.outdated().size());
    // What kubectl baton measures each pod's agent against.
    r.agentImage = found.image();
    tell(r, found);
    condition(r, found);
  }

  /** An Event for each pod newly missing its agent, a changed set of outdated pods, a problem. */
  private void tell(GroupReport r, Found found) {
    AgentPods pods = found.pods();
    Set<String> before = told.computeIfAbsent(r.id, k -> ConcurrentHashMap.newKeySet());
    String outdatedKey = "outdated:" + pods.outdated();
    String problemKey = "problem:" + found.problem();
    // Told again once it ends and comes back.
    before.removeIf(
        k ->
            k.startsWith("missing:") && !pods.missing().contains(k.substring(8))
                || k.startsWith("outdated:") && !k.equals(outdatedKey)
                || k.startsWith("problem:") && !k.equals(problemKey));
    for (String pod : pods.missing()) {
      if (before.add("missing:" + pod)) {
        events.record(
            r.group,
            EventReason.AgentMissing,
            "pod "
                + pod
                + " asks for the agent ("
                + AgentNames.LABEL
                + ") and runs without it: it was created while no webhook answered. It is never"
                + " elected; delete it to have it created again with the agent");
      }
    }
    if (!pods.outdated().isEmpty() && before.add(outdatedKey)) {
      events.record(r.group, EventReason.AgentOutdated, outdated(pods));
    }
    if (found.problem() != null && before.add(problemKey)) {
      events.record(r.group, EventReason.AgentPermissionsNotWritten, found.problem());
    }
  }

  private static void condition(GroupReport r, Found found) {
    AgentPods pods = found.pods();
    if (!pods.missing().isEmpty()) {
      r.conditions.set(
          ConditionType.AgentInjected,
          false,
          "AgentMissing",
          pods.missing().size()
              + " of "
              + pods.optedIn().size()
              + " pods asking for the agent run without it (created while no webhook answered;"
              + " never elected; delete them to have them created with it): "
              + names(pods.missing()));
    } else if (found.problem() != null) {
      r.conditions.set(
          ConditionType.AgentInjected, false, "PermissionsNotWritten", found.problem());
    } else if (!pods.outdated().isEmpty()) {
      r.conditions.set(ConditionType.AgentInjected, true, "AgentOutdated", outdated(pods));
    } else {
      r.conditions.set(
          ConditionType.AgentInjected,
          true,
          "AgentInjected",
          "all " + pods.optedIn().size() + " pods asking for the agent run this operator's");
    }
  }

  private static String outdated(AgentPods pods) {
    return pods.outdated().size()
        + " of "
        + pods.optedIn().size()
        + " pods run an agent image other than this operator's (roll them, e.g. kubectl rollout"
        + " restart): "
        + pods.outdated().entrySet().stream()
            .limit(10)
            .map(e -> e.getKey() + " (" + e.getValue() + ")")
            .collect(Collectors.joining(", "))
        + (pods.outdated().size() > 10 ? ", ..." : "");
  }

  private static String names(List<String> pods) {
    return pods.stream().limit(10).collect(Collectors.joining(", "))
        + (pods.size() > 10 ? ", ..." : "");
  }

  void forget(ResourceID id) {
    told.remove(id);
  }
}
