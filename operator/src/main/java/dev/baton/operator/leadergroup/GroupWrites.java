package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.client.BatonNames;
import dev.baton.operator.kube.Metadata;
import dev.baton.operator.pods.PodLabeler;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/** The act step's writes, against the API server. */
final class GroupWrites implements ElectionActuator.Writes {

  private final KubernetesClient client;
  private final PodLabeler labeler;

  GroupWrites(KubernetesClient client, PodLabeler labeler) {
    this.client = client;
    this.labeler = labeler;
  }

  @Override
  public void label(Pod pod, PodLabeler.Role role) {
    labeler.apply(pod, role);
  }

  @Override
  public void demote(String namespace, String pod, PodLabeler.Role follower) {
    labeler.demote(namespace, pod, follower);
  }

  @Override
  public void clear(Pod pod, String roleLabel) {
    labeler.clear(pod, roleLabel);
  }

  @Override
  public void markLeaders(List<Pod> members, String roleLabel, String failoverDelay) {
    labeler.markLeaders(members, roleLabel, failoverDelay);
  }

  @Override
  public void removeSwitchoverRequest(LeaderGroup group) {
    Metadata.removeAnnotation(client, group, BatonNames.SWITCHOVER_ANNOTATION);
  }
}
