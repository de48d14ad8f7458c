package dev.baton.operator.leadergroup;

import dev.baton.operator.kube.BatonNames;
import dev.baton.operator.kube.Metadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Writes role labels and leader annotations on pods. Each change is one write, sent only when the
 * pod (as last seen) differs from what it should carry. A pod that is already gone counts as done:
 * it can no longer receive traffic.
 */
public class PodLabeler {

  private final KubernetesClient client;

  public PodLabeler(KubernetesClient client) {
    this.client = client;
  }

  /** The metadata a pod of a group should carry. */
  public record Role(
      String roleLabel,
      String group,
      boolean leader,
      long term,
      String since,
      boolean protectLeader) {}

  /** Returns true when a patch was sent. */
  public boolean apply(Pod pod, Role role) {
    Map<String, String> labels = new LinkedHashMap<>();
    Map<String, String> annotations = new LinkedHashMap<>();
    String value = role.leader() ? BatonNames.LEADER : BatonNames.FOLLOWER;
    if (!value.equals(Metadata.label(pod, role.roleLabel()))) {
      labels.put(role.roleLabel(), value);
    }
    want(pod, annotations, BatonNames.GROUP_ANNOTATION, role.group());
    if (role.leader()) {
      want(pod, annotations, BatonNames.TERM_ANNOTATION, Long.toString(role.term()));
      want(pod, annotations, BatonNames.LEADER_SINCE_ANNOTATION, role.since());
      if (role.protectLeader()) {
        want(
            pod, annotations, BatonNames.DELETION_COST_ANNOTATION, BatonNames.LEADER_DELETION_COST);
      } else {
        removeOurDeletionCost(pod, annotations);
      }
    } else {
      want(pod, annotations, BatonNames.TERM_ANNOTATION, null);
      want(pod, annotations, BatonNames.LEADER_SINCE_ANNOTATION, null);
      removeOurDeletionCost(pod, annotations);
    }
    return patch(pod, labels, annotations);
  }

  /** Demotes a pod by name, whatever the cache says about it (used right after a promotion). */
  public void demote(String namespace, String podName, Role follower) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(follower.roleLabel(), BatonNames.FOLLOWER);
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put(BatonNames.TERM_ANNOTATION, null);
    annotations.put(BatonNames.LEADER_SINCE_ANNOTATION, null);
    Pod byName = new Pod();
    byName.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withNamespace(namespace)
            .withName(podName)
            .build());
    patch(byName, labels, annotations);
  }

  /** Removes everything Baton wrote on a pod that no longer belongs to the group. */
  public boolean clear(Pod pod, String roleLabel) {
    Map<String, String> labels = new LinkedHashMap<>();
    Map<String, String> annotations = new LinkedHashMap<>();
    if (Metadata.label(pod, roleLabel) != null) {
      labels.put(roleLabel, null);
    }
    want(pod, annotations, BatonNames.GROUP_ANNOTATION, null);
    want(pod, annotations, BatonNames.TERM_ANNOTATION, null);
    want(pod, annotations, BatonNames.LEADER_SINCE_ANNOTATION, null);
    removeOurDeletionCost(pod, annotations);
    return patch(pod, labels, annotations);
  }

  /**
   * Writes the changes with an update guarded by the resourceVersion they were computed from. When
   * our view was stale (409) the pod is read again and the same changes are applied to what it
   * carries now, so labels written by anyone else in between are kept. A null value removes the
   * key. Public for the RedisLock holder labels, which need the same guarded write.
   */
  public boolean patch(Pod seen, Map<String, String> labels, Map<String, String> annotations) {
    if (labels.isEmpty() && annotations.isEmpty()) {
      return false;
    }
    var resource =
        client
            .pods()
            .inNamespace(seen.getMetadata().getNamespace())
            .withName(seen.getMetadata().getName());
    Pod pod = seen.getMetadata().getResourceVersion() == null ? resource.get() : seen;
    for (int attempt = 0; pod != null; attempt++) {
      Pod changed =
          new PodBuilder(pod)
              .editMetadata()
              .withLabels(merged(pod.getMetadata().getLabels(), labels))
              .withAnnotations(merged(pod.getMetadata().getAnnotations(), annotations))
              .endMetadata()
              .build();
      try {
        client.pods().resource(changed).update();
        return true;
      } catch (KubernetesClientException e) {
        if (e.getCode() == 404) {
          return true;
        }
        if (e.getCode() != 409 || attempt >= 5) {
          throw e;
        }
        pod = resource.get();
      }
    }
    return true;
  }

  private static Map<String, String> merged(
      Map<String, String> current, Map<String, String> changes) {
    Map<String, String> out = new java.util.TreeMap<>(current == null ? Map.of() : current);
    changes.forEach(
        (k, v) -> {
          if (v == null) {
            out.remove(k);
          } else {
            out.put(k, v);
          }
        });
    return out;
  }

  private static void removeOurDeletionCost(Pod pod, Map<String, String> annotations) {
    if (BatonNames.LEADER_DELETION_COST.equals(
        Metadata.annotation(pod, BatonNames.DELETION_COST_ANNOTATION))) {
      annotations.put(BatonNames.DELETION_COST_ANNOTATION, null);
    }
  }

  private static void want(Pod pod, Map<String, String> out, String key, String value) {
    String current = Metadata.annotation(pod, key);
    if (!Objects.equals(current, value)) {
      out.put(key, value);
    }
  }
}
