package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLock;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Optional;

/**
 * What the act step of a RedisLock reconcile reads of pods and writes on the API server: the
 * holder's label and annotation, and the force-release request taken off the lock. An interface of
 * its own so that the act step can be tested against an API held in memory.
 */
interface LockPods {

  /** The pod with {@code uid} among those the holder selector matches, as the cache shows them. */
  Optional<Pod> selected(String ns, LockSettings settings, String uid);

  /** The selected pods plus any pod of the namespace that carries the lock's label (cache). */
  List<Pod> selectedAndLabeled(String ns, LockSettings settings);

  /** Whether any pod of the namespace carries the lock's label (cache). */
  boolean anyLabeled(String ns, LockSettings settings);

  /** Puts the label and the token annotation on the holder. */
  void mark(Pod pod, String key, long token);

  /**
   * Removes label and annotation from every pod of the namespace but {@code keepUid} (null: all),
   * listed from the API server.
   */
  void clearAllBut(String ns, String key, String keepUid);

  /** Removes label and annotation from one pod, read from the API server. */
  void clearPod(String ns, String name, String key);

  /** Removes label and annotation from these pods, except {@code keepUid}. */
  void clear(List<Pod> pods, String key, String keepUid);

  /** Takes the force-release request off the lock, once it was carried out. */
  void forceReleaseDone(RedisLock lock);
}
