package dev.baton.operator.pods;

import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.client.BatonNames;
import dev.baton.operator.kube.Metadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
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

  /**
   * The metadata a pod of a group should carry.
   *
   * @param failoverDelay the leader's {@code baton.dev/failover-delay} ({@link
   *     dev.baton.operator.leadergroup.GroupSettings#failoverDelayAnnotation})
   */
  public record Role(
      String roleLabel,
      String group,
      boolean leader,
      long term,
      String since,
      boolean protectLeader,
      String failoverDelay) {}

  /** Returns true when a patch was sent. */
  public boolean apply(Pod pod, Role role) {
    Map<String, String> labels = new LinkedHashMap<>();
    Map<String, String> annotations = new LinkedHashMap<>();
    String value = role.leader() ? BatonNames.LEADER : BatonNames.FOLLOWER;
    if (!value.equals(Metadata.label(pod, role.roleLabel()))) {
      labels.put(role.roleLabel(), value);
    }
    want(pod, annotations, BatonNames.GROUP_ANNOTATION, role.group());
    want(
        pod,
        annotations,
        BatonNames.ROLE_LABEL_ANNOTATION,
        LeaderGroupSpec.DEFAULT_ROLE_LABEL.equals(role.roleLabel()) ? null : role.roleLabel());
    if (role.leader()) {
      want(pod, annotations, BatonNames.TERM_ANNOTATION, Long.toString(role.term()));
      want(pod, annotations, BatonNames.LEADER_SINCE_ANNOTATION, role.since());
      // In the promotion's own write: the agent never sees the label without it.
      want(pod, annotations, BatonNames.FAILOVER_DELAY_ANNOTATION, role.failoverDelay());
      if (role.protectLeader()) {
        want(
            pod, annotations, BatonNames.DELETION_COST_ANNOTATION, BatonNames.LEADER_DELETION_COST);
      } else {
        removeOurDeletionCost(pod, annotations);
      }
    } else {
      want(pod, annotations, BatonNames.TERM_ANNOTATION, null);
      want(pod, annotations, BatonNames.LEADER_SINCE_ANNOTATION, null);
      want(pod, annotations, BatonNames.FAILOVER_DELAY_ANNOTATION, null);
      removeOurDeletionCost(pod, annotations);
    }
    return patch(pod, labels, annotations);
  }

  /**
   * Rewrites the failover-delay annotation of the pods labeled leader, and nothing else: while a
   * group is paused no label or term is touched, yet an agent must stop anticipating a demotion
   * that the pause called off.
   */
  public void markLeaders(List<Pod> pods, String roleLabel, String failoverDelay) {
    for (Pod pod : pods) {
      if (BatonNames.LEADER.equals(Metadata.label(pod, roleLabel))) {
        Map<String, String> annotations = new LinkedHashMap<>();
        want(pod, annotations, BatonNames.FAILOVER_DELAY_ANNOTATION, failoverDelay);
        patch(pod, Map.of(), annotations);
      }
    }
  }

  /** Demotes a pod by name, whatever the cache says about it (used right after a promotion). */
  public void demote(String namespace, String podName, Role follower) {
    Map<String, String> labels = new LinkedHashMap<>();
    labels.put(follower.roleLabel(), BatonNames.FOLLOWER);
    Map<String, String> annotations = new LinkedHashMap<>();
    annotations.put(BatonNames.TERM_ANNOTATION, null);
    annotations.put(BatonNames.LEADER_SINCE_ANNOTATION, null);
    annotations.put(BatonNames.FAILOVER_DELAY_ANNOTATION, null);
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
    want(pod, annotations, BatonNames.ROLE_LABEL_ANNOTATION, null);
    want(pod, annotations, BatonNames.TERM_ANNOTATION, null);
    want(pod, annotations, BatonNames.LEADER_SINCE_ANNOTATION, null);
    want(pod, annotations, BatonNames.FAILOVER_DELAY_ANNOTATION, null);
    removeOurDeletionCost(pod, annotations);
    return patch(pod, labels, annotations);
  }

  /** The role label a group put on this pod, as the pod itself tells. */
  public static String roleLabelOf(Pod pod) {
    String key = Metadata.annotation(pod, BatonNames.ROLE_LABEL_ANNOTATION);
    return key == null || key.isBlank() ? LeaderGroupSpec.DEFAULT_ROLE_LABEL : key;
  }

  /**
   * Writes the changes as one JSON Patch guarded by the resourceVersion they were computed from:
   * the patch sets metadata.resourceVersion to that version, which the API server treats as a
   * precondition (409 when the pod changed since). Only the keys that change are sent, so a cached
   * pod, which holds only some of its fields (PodSkeleton), is never written back. When the view
   * was stale, the pod is read again and the same changes computed against what it carries now, so
   * labels written by anyone else in between are kept. A null value removes the key. Public for the
   * RedisLock holder labels, which need the same guarded write.
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
      List<Map<String, Object>> ops = new ArrayList<>();
      ops.add(op("replace", "/metadata/resourceVersion", pod.getMetadata().getResourceVersion()));
      changes(ops, "/metadata/labels", pod.getMetadata().getLabels(), labels);
      changes(ops, "/metadata/annotations", pod.getMetadata().getAnnotations(), annotations);
      if (ops.size() == 1) {
        return false;
      }
      try {
        // Through the pod in hand: by name alone, the client would GET the pod before patching.
        client
            .pods()
            .resource(pod)
            .patch(PatchContext.of(PatchType.JSON), Serialization.asJson(ops));
        return true;
      } catch (KubernetesClientException e) {
        if (e.getCode() == 404) {
          return true;
        }
        // 409: the pod changed since it was seen. 422: a key to remove was already gone, or a map
        // to add to was removed: the view was stale too. Nothing was written; read it again.
        if (e.getCode() != 409 && e.getCode() != 422 || attempt >= 5) {
          throw e;
        }
        pod = resource.get();
      }
    }
    return true;
  }

  /**
   * The operations that bring one map of the pod from what it has to what it should have. A map the
   * pod lacks is added whole (PodSkeleton keeps an empty map for a pod whose annotations it
   * dropped, so null means none).
   */
  private static void changes(
      List<Map<String, Object>> ops,
      String path,
      Map<String, String> current,
      Map<String, String> changes) {
    Map<String, String> has = current == null ? Map.of() : current;
    Map<String, String> wanted = new LinkedHashMap<>();
    List<String> removed = new ArrayList<>();
    changes.forEach(
        (k, v) -> {
          if (v == null) {
            if (has.containsKey(k)) {
              removed.add(k);
            }
          } else if (!v.equals(has.get(k))) {
            wanted.put(k, v);
          }
        });
    if (wanted.isEmpty() && removed.isEmpty()) {
      return;
    }
    if (current == null) {
      ops.add(op("add", path, wanted));
      return;
    }
    wanted.forEach((k, v) -> ops.add(op("add", path + "/" + escape(k), v)));
    removed.forEach(k -> ops.add(op("remove", path + "/" + escape(k), null)));
  }

  private static Map<String, Object> op(String op, String path, Object value) {
    Map<String, Object> o = new LinkedHashMap<>();
    o.put("op", op);
    o.put("path", path);
    if (!"remove".equals(op)) {
      o.put("value", value);
    }
    return o;
  }

  /** RFC 6901: "~" and "/" in a key. */
  private static String escape(String key) {
    return key.replace("~", "~0").replace("/", "~1");
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
