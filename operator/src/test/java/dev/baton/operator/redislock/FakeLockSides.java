package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.client.InstanceView;
import dev.baton.client.LockKeys;
import dev.baton.client.LockResult;
import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One Redis and one API server held in memory, for unit tests of the act step only. Both write what
 * is done to them into one journal, so a test sees the order of Redis and API writes.
 */
final class FakeLockSides {

  final List<String> journal = new ArrayList<>();

  /**
   * Writes that broke labels-before-locks: a label put on while another pod carried one or while
   * Redis did not hold that pod's grant, a grant released while its pod was labeled.
   */
  final List<String> breaks = new ArrayList<>();

  /** One Redis instance: the lock's value, its token counter and the reserved ceiling. */
  final class Redis implements LockRedis {
    String value;
    long counter;
    long reserved = 1_000;

    LockView view() {
      InstanceView i =
          new InstanceView(
              "redis",
              true,
              false,
              value,
              value == null ? -2 : 30_000,
              counter,
              reserved,
              false,
              null);
      return new LockView(List.of(i), 1);
    }

    @Override
    public LockView observe(LockKeys keys) {
      return view();
    }

    @Override
    public LockResult acquire(
        LockKeys keys, String value, Duration ttl, long floor, long reserved) {
      journal.add("acquire " + value);
      if (this.value != null) {
        return new LockResult(false, 0, 0, view());
      }
      this.value = value;
      counter = Math.max(counter, floor) + 1;
      return new LockResult(true, counter, ttl.toMillis(), view());
    }

    @Override
    public LockResult renew(LockKeys keys, String value, Duration ttl, long token) {
      journal.add("renew " + value);
      boolean ok = value.equals(this.value);
      return new LockResult(ok, ok ? token : 0, ok ? ttl.toMillis() : 0, view());
    }

    @Override
    public LockResult release(LockKeys keys, String value) {
      journal.add("release " + value);
      LockValues.parsePod(value)
          .filter(ref -> api.labeled.containsKey(ref.name()))
          .ifPresent(ref -> breaks.add("released " + value + " while " + ref.name() + " labeled"));
      boolean ok = value.equals(this.value);
      if (ok) {
        this.value = null;
      }
      return new LockResult(ok, 0, 0, view());
    }

    @Override
    public LockView reserve(LockKeys keys, long floor, long ceiling) {
      journal.add("reserve " + ceiling);
      reserved = ceiling;
      return view();
    }
  }

  /** Pods as the cache shows them, their holder labels, and writes that can be made to fail. */
  final class Api implements LockPods {
    final Map<String, Pod> pods = new HashMap<>();

    /** Pod name to the token its annotation shows, for the pods that carry the lock's label. */
    final Map<String, Long> labeled = new HashMap<>();

    private String failing;
    private int failingCode;

    /** The next write whose journal line starts with {@code what} fails with this API error. */
    void failNext(String what, int code) {
      failing = what;
      failingCode = code;
    }

    Pod pod(String name) {
      Pod p = podNamed(name);
      pods.put(name, p);
      return p;
    }

    @Override
    public void mark(Pod pod, String key, long token) {
      String name = pod.getMetadata().getName();
      if (labeled.keySet().stream().anyMatch(other -> !other.equals(name))) {
        breaks.add("labeled " + name + " while " + labeled.keySet() + " labeled");
      }
      String uid = pod.getMetadata().getUid();
      if (redis.value == null
          || LockValues.parsePod(redis.value).filter(ref -> ref.uid().equals(uid)).isEmpty()) {
        breaks.add("labeled " + name + " while Redis holds " + redis.value);
      }
      write("label " + name + " " + token);
      labeled.put(pod.getMetadata().getName(), token);
    }

    @Override
    public void clearAllBut(String ns, String key, String keepUid) {
      write("unlabel all but " + keepUid);
      labeled.keySet().removeIf(name -> !(name + "-uid").equals(keepUid));
    }

    @Override
    public void clearPod(String ns, String name, String key) {
      write("unlabel " + name);
      labeled.remove(name);
    }

    @Override
    public void clear(List<Pod> pods, String key) {
      List<String> names = pods.stream().map(p -> p.getMetadata().getName()).sorted().toList();
      write("unlabel cached " + names);
      names.forEach(labeled::remove);
    }

    /** The pods that carry the lock's label, as a cache would show them to the observe step. */
    List<Pod> labeledPods() {
      return labeled.keySet().stream().sorted().map(FakeLockSides::podNamed).toList();
    }

    @Override
    public void forceReleaseDone(RedisLock lock) {
      write("request done");
    }

    private void write(String what) {
      if (failing != null && what.startsWith(failing)) {
        failing = null;
        journal.add("failed: " + what);
        throw new KubernetesClientException("refused", failingCode, null);
      }
      journal.add(what);
    }
  }

  final Redis redis = new Redis();
  final Api api = new Api();

  /** A pod of namespace shop whose uid is its name and "-uid". */
  static Pod podNamed(String name) {
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace("shop")
        .withUid(name + "-uid")
        .endMetadata()
        .build();
  }
}
