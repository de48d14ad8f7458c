package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLock;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.Optional;

/**
 * What the act step of a RedisLock reconcile reads of pods and writes on the API server: the
 * holder's label and annotation, and the force-release request taken off the lock. An interface of
 * its own so that the act step can be tested against an API held in memory.
 */
interface LockPods {

  /** The pod with {@code uid} among those the holder selector matches, as the cache shows them. */
  Optional<Pod> selected(String ns, LockSettings settings, String uid);

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

  /**
   * Removes label and annotation, as the cache shows them, from the selected pods and any other pod
   * of the namespace that carries them, except {@code keepUid} (null: all): the steady state, where
   * nothing changes hands.
   */
  void clearSelected(String ns, LockSettings settings, String keepUid);

  /** Takes the force-release request off the lock, once it was carried out. */
  void forceReleaseDone(RedisLock lock);
}
