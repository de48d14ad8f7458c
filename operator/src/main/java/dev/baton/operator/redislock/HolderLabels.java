package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.client.BatonNames;
import dev.baton.operator.kube.Metadata;
import dev.baton.operator.pods.PodLabeler;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The label {@code locks.baton.dev/<lock>: held} and the annotation with the fencing token on the
 * pod a lock is granted to. Writes go through {@link PodLabeler}'s resourceVersion-guarded update;
 * it reads no cache, but lists from the API server where a pod labeled a moment ago must not be
 * missed.
 */
final class HolderLabels implements LockPods {

  private final KubernetesClient client;
  private final PodLabeler writer;

  HolderLabels(KubernetesClient client) {
    this.client = client;
    this.writer = new PodLabeler(client);
  }

  /** When it does not carry them yet. */
  @Override
  public void mark(Pod pod, String key, long token) {
    Map<String, String> labels = new HashMap<>();
    Map<String, String> annotations = new HashMap<>();
    if (!BatonNames.HELD.equals(Metadata.label(pod, key))) {
      labels.put(key, BatonNames.HELD);
    }
    if (!Long.toString(token).equals(Metadata.annotation(pod, key))) {
      annotations.put(key, Long.toString(token));
    }
    writer.patch(pod, labels, annotations);
  }

  /**
   * Removes label and annotation from every pod of the namespace that carries them, except the pod
   * with {@code keepUid} (null: from all). Lists the pods from the API server, not a cache: it runs
   * before a lock changes hands, and a pod labeled a moment ago must not be missed.
   */
  @Override
  public void clearAllBut(String namespace, String key, String keepUid) {
    clear(client.pods().inNamespace(namespace).withLabel(key).list().getItems(), key, keepUid);
  }

  /** Gone counts as done. */
  @Override
  public void clearPod(String namespace, String name, String key) {
    Pod pod = client.pods().inNamespace(namespace).withName(name).get();
    if (pod != null) {
      clear(List.of(pod), key, null);
    }
  }

  @Override
  public void clear(List<Pod> pods, String key) {
    clear(pods, key, null);
  }

  private void clear(List<Pod> pods, String key, String keepUid) {
    for (Pod pod : pods) {
      if (Objects.equals(pod.getMetadata().getUid(), keepUid)) {
        continue;
      }
      Map<String, String> labels = new HashMap<>();
      Map<String, String> annotations = new HashMap<>();
      if (Metadata.label(pod, key) != null) {
        labels.put(key, null);
      }
      if (Metadata.annotation(pod, key) != null) {
        annotations.put(key, null);
      }
      writer.patch(pod, labels, annotations);
    }
  }

  @Override
  public void forceReleaseDone(RedisLock lock) {
    Metadata.removeAnnotation(client, lock, BatonNames.FORCE_RELEASE_ANNOTATION);
  }

  static boolean carries(Pod pod, String key) {
    return Metadata.label(pod, key) != null || Metadata.annotation(pod, key) != null;
  }
}
