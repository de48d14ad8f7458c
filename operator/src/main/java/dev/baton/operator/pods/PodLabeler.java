package dev.baton.operator.pods;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.client.BatonNames;
import dev.baton.operator.kube.Metadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;

/**
 * Writes role labels and leader annotations on pods. Each change is one write, sent only when the
 * pod (as last seen) differs from what it should carry. A pod that is already gone counts as done:
 * it can no longer receive traffic.
 */
public class PodLabeler {

  private static final ObjectMapper NULLS_KEPT = new ObjectMapper();

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
    return apply(pod, role, () -> {});
  }

  /** The same; {@code sending} runs right before each patch is sent. */
  public boolean apply(Pod pod, Role role, Runnable sending) {
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
    // Read again after a conflict, a pod another group marked meanwhile is left alone: a group
    // never overwrites another's marks (docs/design.md, "Multi-tenant clusters").
    return patch(pod, labels, annotations, p -> markedByNoneOr(p, role.group()), sending);
  }

  private static boolean markedByNoneOr(Pod pod, String group) {
    String marked = Metadata.annotation(pod, BatonNames.GROUP_ANNOTATION);
    return marked == null || marked.equals(group);
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

  /**
   * Demotes a pod by name, whatever the cache says about it, in one write guarded by nothing: a
   * merge patch that sets the role label to follower and removes the term, since and failover-delay
   * annotations, keys Baton alone writes, so no change of the pod by anyone else since it was seen
   * can make it wrong. A demotion must land before the lease changes hands (break before make), and
   * a pod being deleted changes under the operator (its kubelet reports its containers stopping): a
   * resourceVersion guard would cost a 409, a read and a second write there, before the new leader
   * could be labeled. The deletion cost Baton put on a leader is left to the next guarded write of
   * the pod's follower marks, since users may write that key too. A pod that is gone counts as
   * demoted.
   *
   * @param sending runs right before the patch is sent
   */
  public void demote(String namespace, String podName, Role follower, Runnable sending) {
    Map<String, Object> labels = new LinkedHashMap<>();
    labels.put(follower.roleLabel(), BatonNames.FOLLOWER);
    Map<String, Object> annotations = new LinkedHashMap<>();
    annotations.put(BatonNames.TERM_ANNOTATION, null);
    annotations.put(BatonNames.LEADER_SINCE_ANNOTATION, null);
    annotations.put(BatonNames.FAILOVER_DELAY_ANNOTATION, null);
    Map<String, Object> metadata = new LinkedHashMap<>();
    metadata.put("labels", labels);
    metadata.put("annotations", annotations);
    sending.run();
    try {
      client
          .pods()
          .resource(address(namespace, podName))
          .patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch(metadata));
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }

  /**
   * A pod's name and namespace alone: what the client needs to address a patch without reading the
   * pod first, and without copying a cached pod whole on every write.
   */
  private static Pod address(String namespace, String name) {
    Pod pod = new Pod();
    pod.setMetadata(
        new io.fabric8.kubernetes.api.model.ObjectMetaBuilder()
            .withNamespace(namespace)
            .withName(name)
            .build());
    return pod;
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
   * Writes the changes as one JSON merge patch (RFC 7386) guarded by the resourceVersion they were
   * computed from: a merge patch that names metadata.resourceVersion is refused with 409 when the
   * pod changed since. Only the keys that change are sent (a null removes one), so a cached pod,
   * which holds only some of its fields (PodSkeleton), is never written back, and a map the pod
   * lacks is created by the server: a JSON patch that adds under a missing map is refused with 422
   * by a real API server, and the client cannot tell a missing map from an empty one (it reads both
   * as empty). When the view was stale, the pod is read again and the same changes computed against
   * what it carries now, so labels written by anyone else in between are kept. Public for the
   * RedisLock holder labels, which need the same guarded write.
   */
  public boolean patch(Pod seen, Map<String, String> labels, Map<String, String> annotations) {
    return patch(seen, labels, annotations, p -> true, () -> {});
  }

  /**
   * The same, not written when the pod read again after a conflict fails {@code stillOurs}; {@code
   * sending} runs right before each patch is sent.
   */
  private boolean patch(
      Pod seen,
      Map<String, String> labels,
      Map<String, String> annotations,
      Predicate<Pod> stillOurs,
      Runnable sending) {
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
      Map<String, Object> metadata = new LinkedHashMap<>();
      metadata.put("resourceVersion", pod.getMetadata().getResourceVersion());
      changes(metadata, "labels", pod.getMetadata().getLabels(), labels);
      changes(metadata, "annotations", pod.getMetadata().getAnnotations(), annotations);
      if (metadata.size() == 1) {
        return false;
      }
      try {
        sending.run();
        // Addressed by a pod in hand: by name alone, the client would GET the pod before
        // patching; the resourceVersion that guards the write is in the patch itself.
        client
            .pods()
            .resource(address(pod.getMetadata().getNamespace(), pod.getMetadata().getName()))
            .patch(PatchContext.of(PatchType.JSON_MERGE), mergePatch(metadata));
        return true;
      } catch (KubernetesClientException e) {
        if (e.getCode() == 404) {
          return true;
        }
        // 409: the pod changed since it was seen; nothing was written. Read it again.
        if (e.getCode() != 409 || attempt >= 5) {
          throw e;
        }
        pod = resource.get();
        if (pod != null && !stillOurs.test(pod)) {
          return false;
        }
      }
    }
    return true;
  }

  /** The patch's body; null values are written, since a null removes a key. */
  private static String mergePatch(Map<String, Object> metadata) {
    try {
      return NULLS_KEPT.writeValueAsString(Map.of("metadata", metadata));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** The keys of one map that must change to bring it from what the pod has to what it should. */
  private static void changes(
      Map<String, Object> metadata,
      String map,
      Map<String, String> current,
      Map<String, String> changes) {
    Map<String, String> has = current == null ? Map.of() : current;
    Map<String, String> patch = new LinkedHashMap<>();
    changes.forEach(
        (k, v) -> {
          if (v == null ? has.containsKey(k) : !v.equals(has.get(k))) {
            patch.put(k, v);
          }
        });
    if (!patch.isEmpty()) {
      metadata.put(map, patch);
    }
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
