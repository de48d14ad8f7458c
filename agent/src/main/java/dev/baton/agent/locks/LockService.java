package dev.baton.agent.locks;

import dev.baton.client.BatonLock;
import dev.baton.client.BatonLocks;
import dev.baton.client.LockKeys;
import dev.baton.client.LockLease;
import dev.baton.client.LockOwner;
import dev.baton.client.LockUnavailableException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Fenced locks taken for this pod through {@code baton-client}: the holder value names the pod, so
 * the operator shows it and reaps the lock when the pod is gone. A key is known when Redis holds
 * the operator's token reservation for it, which the operator makes for every RedisLock; so the
 * agent needs no Kubernetes permission for locks. Nothing is renewed on its own.
 */
public final class LockService {

  /** An answer for the HTTP layer: the status and the JSON body. */
  public record Outcome(int status, Map<String, Object> body) {}

  private final RedissonClient redisson;
  private final String namespace;
  private final String pod;
  private final Supplier<Optional<String>> podUid;
  private final Map<String, LockLease> held = new ConcurrentHashMap<>();

  public LockService(
      RedissonClient redisson, String namespace, String pod, Supplier<Optional<String>> podUid) {
    this.redisson = redisson;
    this.namespace = namespace;
    this.pod = pod;
    this.podUid = podUid;
  }

  /** Takes the lock, trying for up to {@code wait}. */
  public Outcome acquire(String key, Duration ttl, Duration wait) {
    Optional<String> uid = podUid.get();
    if (uid.isEmpty()) {
      return error(503, "the pod's uid is not known yet: the agent has not read its pod");
    }
    Optional<String> resolved = resolve(key, wait);
    if (resolved.isEmpty()) {
      return unknown(key);
    }
    String k = resolved.get();
    BatonLocks locks = BatonLocks.singleRedis(redisson, LockOwner.pod(namespace, pod, uid.get()));
    BatonLock lock = locks.lock(k, ttl);
    Optional<LockLease> lease;
    try {
      lease = lock.tryAcquire(wait);
    } catch (LockUnavailableException e) {
      return error(503, e.getMessage());
    }
    if (lease.isEmpty()) {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put("error", "lock " + k + " is held");
      body.put("key", k);
      body.put("holder", lock.holder().orElse(null));
      return new Outcome(409, body);
    }
    LockLease previous = held.put(k, lease.get());
    if (previous != null) {
      previous.release(); // this pod's older hold, replaced by the new one
    }
    return granted(k, lease.get(), ttl);
  }

  /** Extends this pod's hold by its ttl. */
  public Outcome renew(String key) {
    Optional<String> k = heldKey(key);
    if (k.isEmpty()) {
      return resolve(key, Duration.ZERO).isEmpty()
          ? unknown(key)
          : error(409, "lock " + key + " is not held by this pod");
    }
    LockLease lease = held.get(k.get());
    if (lease == null || !lease.renew()) {
      held.remove(k.get(), lease);
      return error(409, "lock " + k.get() + " was lost: its ttl ran out or it was released");
    }
    return granted(k.get(), lease, null);
  }

  /** Releases this pod's hold; never another's. */
  public Outcome release(String key) {
    Optional<String> k = heldKey(key);
    if (k.isEmpty()) {
      return resolve(key, Duration.ZERO).isEmpty()
          ? unknown(key)
          : error(409, "lock " + key + " is not held by this pod");
    }
    LockLease lease = held.remove(k.get());
    boolean released = lease != null && lease.release();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("key", k.get());
    body.put("released", released);
    return new Outcome(released ? 200 : 409, body);
  }

  private Optional<String> heldKey(String key) {
    for (String k : candidates(key)) {
      if (held.containsKey(k)) {
        return Optional.of(k);
      }
    }
    return Optional.empty();
  }

  /**
   * The key as given, or, for a key without a slash, the RedisLock of that name in this pod's
   * namespace ({@code <namespace>/<name>}, the default key); whichever has a token reservation. A
   * RedisLock created a moment ago gets its reservation within {@link BatonLock#RESERVATION_WAIT},
   * so a key is looked for at least that long.
   */
  private Optional<String> resolve(String key, Duration wait) {
    long deadline =
        System.nanoTime() + Math.max(wait.toNanos(), BatonLock.RESERVATION_WAIT.toNanos());
    List<String> candidates = candidates(key);
    while (true) {
      for (String c : candidates) {
        if (redisson.getBucket(new LockKeys(c).reservation(), StringCodec.INSTANCE).isExists()) {
          return Optional.of(c);
        }
      }
      if (System.nanoTime() - deadline > 0) {
        return Optional.empty();
      }
      try {
        Thread.sleep(50);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
  }

  private List<String> candidates(String key) {
    List<String> out = new ArrayList<>(List.of(key));
    if (!key.contains("/")) {
      out.add(namespace + "/" + key);
    }
    return out;
  }

  private static Outcome granted(String key, LockLease lease, Duration ttl) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("key", key);
    body.put("token", lease.token());
    body.put("expiresAt", Instant.now().plus(ttl == null ? lease.ttl() : ttl).toString());
    return new Outcome(200, body);
  }

  private static Outcome unknown(String key) {
    return error(
        404,
        "no RedisLock has the key '"
            + key
            + "' (Redis holds no token reservation for it; the Baton operator makes one for every"
            + " RedisLock)");
  }

  private static Outcome error(int status, String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", message);
    return new Outcome(status, body);
  }
}
