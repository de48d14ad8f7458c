package dev.baton.agent.locks;

import dev.baton.client.BatonLock;
import dev.baton.client.BatonLocks;
import dev.baton.client.LockKeys;
import dev.baton.client.LockLease;
import dev.baton.client.LockOwner;
import dev.baton.client.LockStore;
import dev.baton.client.LockUnavailableException;
import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Fenced locks taken for this pod through {@code baton-client}: the holder value names the pod, so
 * the operator shows it and reaps the lock when the pod is gone. A key is known when Redis holds
 * the operator's token reservation for it, which the operator makes for every RedisLock; so the
 * agent needs no Kubernetes permission for locks. Nothing is renewed on its own.
 *
 * <p>Redis, not this agent's memory, is the record of what the pod holds: a hold the agent does not
 * know (taken before it restarted in the same pod) is adopted from the lock's value, which names
 * the pod and its uid, so the application goes on renewing and releasing it. Every answer about a
 * hold carries the validity the client library computed, never more. When Redis does not answer,
 * the operations throw {@link LockUnavailableException} or Redisson's {@code RedisException}.
 */
public final class LockService {

  /**
   * The ttl when a request names none; also a hold's after the agent restarted, since Redis keeps
   * only the time left, not the ttl the hold was taken with.
   */
  public static final Duration DEFAULT_TTL = Duration.ofSeconds(30);

  /**
   * How often a long poll reads the lock: one small script per poll, while an application waits.
   */
  private static final long POLL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

  private static final long MIN_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  /** An answer for the HTTP layer: the status and the JSON body. */
  public record Outcome(int status, Map<String, Object> body) {}

  private final RedissonClient redisson;
  private final LockStore store;
  private final String namespace;
  private final String pod;
  private final Supplier<Optional<String>> podUid;
  private final Map<String, LockLease> held = new ConcurrentHashMap<>();

  public LockService(
      RedissonClient redisson, String namespace, String pod, Supplier<Optional<String>> podUid) {
    this.redisson = redisson;
    this.store = LockStore.single(redisson);
    this.namespace = namespace;
    this.pod = pod;
    this.podUid = podUid;
  }

  /** Takes the lock, trying for up to {@code wait}. */
  public Outcome acquire(String key, Duration ttl, Duration wait) {
    Optional<BatonLocks> locks = locks();
    if (locks.isEmpty()) {
      return uidUnknown();
    }
    Optional<String> resolved = resolve(key, wait);
    if (resolved.isEmpty()) {
      return unknown(key);
    }
    String k = resolved.get();
    BatonLock lock = locks.get().lock(k, ttl);
    Optional<LockLease> lease = lock.tryAcquire(wait);
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
    return granted(k, lease.get());
  }

  /**
   * Extends this pod's hold by {@code ttl}, else by the ttl it was taken with through this agent,
   * else by {@link #DEFAULT_TTL}.
   */
  public Outcome renew(String key, Optional<Duration> ttl) {
    Optional<String> k = known(key);
    if (k.isEmpty()) {
      return unknown(key);
    }
    LockLease lease = held.get(k.get());
    if (lease == null || (ttl.isPresent() && !ttl.get().equals(lease.ttl()))) {
      // A lease is bound to its ttl: another ttl takes a lease of its own for the same hold.
      Optional<BatonLocks> locks = locks();
      if (locks.isEmpty()) {
        return uidUnknown();
      }
      Optional<LockLease> adopted = locks.get().lock(k.get(), ttl.orElse(DEFAULT_TTL)).adopt();
      if (adopted.isEmpty()) {
        return gone(k.get(), null);
      }
      lease = adopted.get();
    }
    if (!lease.renew()) {
      return gone(k.get(), lease.value());
    }
    held.put(k.get(), lease);
    return granted(k.get(), lease);
  }

  /** Releases this pod's hold; never another's. */
  public Outcome release(String key) {
    Optional<String> k = known(key);
    if (k.isEmpty()) {
      return unknown(key);
    }
    LockLease lease = held.remove(k.get());
    if (lease == null) {
      Optional<BatonLocks> locks = locks();
      if (locks.isEmpty()) {
        return uidUnknown();
      }
      lease = locks.get().lock(k.get(), DEFAULT_TTL).adopt().orElse(null);
    }
    if (lease == null || !lease.release()) {
      Outcome out = gone(k.get(), lease == null ? null : lease.value());
      if (out.status() == 409) {
        out.body().put("released", false);
      }
      return out;
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("key", k.get());
    body.put("released", true);
    return new Outcome(200, body);
  }

  /**
   * This pod's hold on the lock, at once; or, given a {@code wait}, as soon as the pod no longer
   * holds it (expired, released, force-released, taken by another, or lost with Redis's data) and
   * at the latest when the wait is over. A hold counts while it is safe to use by the validity the
   * library computed, so the answer may come a little before Redis lets the key go.
   */
  public Outcome state(String key, Duration wait) throws InterruptedException {
    Optional<BatonLocks> locks = locks();
    if (locks.isEmpty()) {
      return uidUnknown();
    }
    Optional<String> k = known(key);
    if (k.isEmpty()) {
      return unknown(key);
    }
    BatonLock lock = locks.get().lock(k.get(), DEFAULT_TTL);
    long deadline = System.nanoTime() + wait.toNanos();
    Optional<LockLease> hold = hold(k.get(), lock);
    while (hold.isPresent()) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      // Woken when the validity runs out too, not up to a poll later.
      long pause = Math.min(POLL_NANOS, Math.min(left, hold.get().remainingValidity().toNanos()));
      TimeUnit.NANOSECONDS.sleep(Math.max(MIN_PAUSE_NANOS, pause));
      hold = hold(k.get(), lock);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("key", k.get());
    body.put("held", hold.isPresent());
    if (hold.isPresent()) {
      validity(body, hold.get());
      body.put("holder", LockValues.holder(hold.get().value()));
    } else {
      body.put("token", null);
      body.put("expiresAt", null);
      body.put("validForMillis", 0);
      body.put("holder", lock.holder().orElse(null));
    }
    return new Outcome(200, body);
  }

  /**
   * This pod's hold as Redis has it, while still valid: the lease this agent took when it is that
   * hold (its validity is the one its own acquire or renew computed), else one adopted from Redis.
   */
  private Optional<LockLease> hold(String k, BatonLock lock) {
    Optional<LockLease> found = lock.adopt();
    if (found.isEmpty()) {
      return found;
    }
    LockLease mine = held.get(k);
    LockLease lease = mine != null && mine.value().equals(found.get().value()) ? mine : found.get();
    return lease.isValid() ? Optional.of(lease) : Optional.empty();
  }

  /**
   * The answer when an operation on the hold with value {@code ours} (null: none was found) did not
   * succeed: a 409 naming the lock's holder now, the hold forgotten; a 503 when Redis still has
   * {@code ours}, since then only the answer was missing (too late or lost), and a retry may do.
   */
  private Outcome gone(String k, String ours) {
    LockView view = store.observe(new LockKeys(k));
    if (!view.quorumReachable()) {
      throw new LockUnavailableException(
          "lock " + k + ": Redis did not answer: " + view.unreachableDescriptions());
    }
    String now = view.holder();
    if (ours != null && ours.equals(now)) {
      return error(
          503,
          "lock "
              + k
              + ": Redis did not confirm in time, and still has this pod's hold: try again");
    }
    held.computeIfPresent(k, (x, lease) -> lease.value().equals(now) ? lease : null);
    String holder = now == null ? null : LockValues.holder(now);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put(
        "error",
        "lock "
            + k
            + " is not held by this pod: its hold is gone ("
            + (holder == null
                ? "ttl ran out, or released"
                : "ttl ran out, released, or taken by " + holder)
            + ")");
    body.put("key", k);
    body.put("holder", holder);
    return new Outcome(409, body);
  }

  /** The key a hold of this agent has, else the key as {@link #resolve} finds it. */
  private Optional<String> known(String key) {
    for (String k : candidates(key)) {
      if (held.containsKey(k)) {
        return Optional.of(k);
      }
    }
    return resolve(key, Duration.ZERO);
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

  /**
   * Locks owned by this pod, once the agent knows the pod's uid, which every holder value names.
   */
  private Optional<BatonLocks> locks() {
    return podUid.get().map(uid -> new BatonLocks(store, LockOwner.pod(namespace, pod, uid)));
  }

  private static Outcome granted(String key, LockLease lease) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("key", key);
    validity(body, lease);
    return new Outcome(200, body);
  }

  /**
   * The token, and the validity the library computed as a deadline and as the time left. The wall
   * clock is read first: the monotonic reading after it can only shorten what is left, so the
   * deadline is never later than the library's.
   */
  private static void validity(Map<String, Object> body, LockLease lease) {
    Instant now = Instant.now();
    Duration left = lease.remainingValidity();
    body.put("token", lease.token());
    body.put("expiresAt", now.plus(left).truncatedTo(ChronoUnit.MILLIS).toString());
    body.put("validForMillis", left.toMillis());
  }

  private static Outcome uidUnknown() {
    return error(503, "the pod's uid is not known yet: the agent has not read its pod");
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
