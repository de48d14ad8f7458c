package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.operator.injection.AgentPermissions;
import dev.baton.operator.injection.AgentPods;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;

/**
 * The reconcile's part for the agents of a group's pods that ask for one (their label): their
 * permissions and policy kept, and what the report tells of them. Nothing while injection is off.
 */
final class GroupAgents {

  private final AgentPermissions permissions;

  /** The image the webhook injects; null: injection is off. */
  private final String image;

  GroupAgents(KubernetesClient client, Clock clock, String image) {
    this.permissions = new AgentPermissions(client, clock);
    this.image = image;
  }

  /**
   * Writes what the agents need (after the election, so that it never waits for these writes); null
   * when injection is off or nothing was looked at.
   */
  AgentsReport.Found kept(LeaderGroup group, GroupEnding.Looked looked) {
    if (looked == null || image == null) {
      // Injection off: the chart grants nothing for agents, and the label asks nothing of Baton.
      return null;
    }
    AgentPods pods = AgentPods.of(looked.pods().membership().members(), image);
    return new AgentsReport.Found(pods, image, pods.any() ? permissions.keep(group, pods) : null);
  }

  void forget(LeaderGroup group) {
    permissions.forget(group);
  }
}
