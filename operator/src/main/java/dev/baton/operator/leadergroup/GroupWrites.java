package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.client.BatonNames;
import dev.baton.operator.kube.Metadata;
import dev.baton.operator.metrics.FailoverTrace;
import dev.baton.operator.pods.PodLabeler;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;

/** The act step's writes, against the API server. */
record GroupWrites(KubernetesClient client, PodLabeler labeler) implements ElectionActuator.Writes {

  @Override
  public void label(Pod pod, PodLabeler.Role role) {
    String ns = pod.getMetadata().getNamespace();
    String detail = pod.getMetadata().getName() + (role.leader() ? " leader" : " follower");
    if (labeler.apply(pod, role, () -> trace(FailoverTrace.Step.LABEL_SENT, ns, role, detail))) {
      trace(FailoverTrace.Step.LABEL_ANSWERED, ns, role, detail);
    }
  }

  @Override
  public void demote(String namespace, String pod, PodLabeler.Role follower) {
    String detail = pod + " follower";
    labeler.demote(
        namespace,
        pod,
        follower,
        () -> trace(FailoverTrace.Step.LABEL_SENT, namespace, follower, detail));
    trace(FailoverTrace.Step.LABEL_ANSWERED, namespace, follower, detail);
  }

  private static void trace(
      FailoverTrace.Step step, String namespace, PodLabeler.Role role, String detail) {
    FailoverTrace.stamp(step, namespace, role.group(), detail);
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
