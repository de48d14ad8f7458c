package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLock;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;

/**
 * What the act step of a RedisLock reconcile writes on the API server: the holder's label and
 * annotation, and the force-release request taken off the lock. It reads no cache: the pods it
 * writes come in the plan's steps. An interface of its own so that the act step can be tested
 * against an API held in memory.
 */
interface LockPods {

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
   * Removes label and annotation from these pods, as the cache showed them to the observe step: the
   * steady state, where nothing changes hands.
   */
  void clear(List<Pod> pods, String key);

  /** Takes the force-release request off the lock, once it was carried out. */
  void forceReleaseDone(RedisLock lock);
}
