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
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
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

  /** Per key, the hold whose last renewal through this agent Redis did not confirm. */
  private final Map<String, String> atRiskFor = new ConcurrentHashMap<>();

  public LockService(
      RedissonClient redisson, String namespace, String pod, Supplier<Optional<String>> podUid) {
    this.redisson = redisson;
    this.store = LockStore.single(redisson);
    this.namespace = namespace;
    this.pod = pod;
    this.podUid = podUid;
  }

  /**
   * Takes the lock for {@code owner} (null: the pod as a whole), trying for up to {@code wait}. A
   * key no RedisLock has answers 404 at once; a lock this owner holds already answers 409 at once.
   */
  public Outcome acquire(String key, String owner, Duration ttl, Duration wait) {
    Asked asked = ownersLocks(key, owner, this::resolve);
    if (asked.answer() != null) {
      return asked.answer();
    }
    String k = asked.key();
    BatonLock lock = asked.locks().lock(k, ttl);
    Optional<LockLease> mine = hold(k, lock);
    if (mine.isPresent()) {
      Map<String, Object> body = new LinkedHashMap<>();
      body.put(
          "error",
          who(owner)
              + " holds lock "
              + k
              + " already: renew it (POST /v1/locks/"
              + k
              + "/renew), or release it first");
      body.put("key", k);
      body.put("holder", LockValues.holder(mine.get().value()));
      body.put("yours", true);
      return new Outcome(409, body);
    }
    Optional<LockLease> lease = lock.tryAcquire(wait);
    if (lease.isEmpty()) {
      String value = store.observe(new LockKeys(k)).holder();
      String holder = value == null ? null : LockValues.holder(value);
      Map<String, Object> body = new LinkedHashMap<>();
      body.put(
          "error",
          "lock "
              + k
              + (value == null
                  ? " could not be taken in time"
                  : " is held by " + LockAnswers.describe(value)));
      body.put("key", k);
      body.put("holder", holder);
      body.put("yours", false);
      return new Outcome(409, body);
    }
    LockLease previous = held.put(k, lease.get());
    if (previous != null && !previous.value().equals(lease.get().value())) {
      previous.release(); // an older hold of this pod, replaced by the new one
    }
    atRiskFor.remove(k);
    return LockAnswers.granted(k, lease.get());
  }

  /**
   * Extends {@code owner}'s hold by {@code ttl}, else by the ttl it was taken with through this
   * agent, else by {@link #DEFAULT_TTL}.
   */
  public Outcome renew(String key, String owner, Optional<Duration> ttl) {
    Asked asked = ownersHold(key, owner);
    if (asked.answer() != null) {
      return asked.answer();
    }
    String k = asked.key();
    LockLease lease = asked.lease();
    if (!asked.ours() || (ttl.isPresent() && !ttl.get().equals(lease.ttl()))) {
      // A lease is bound to its ttl: another ttl takes a lease of its own for the same hold.
      Optional<LockLease> adopted =
          asked.locks().lock(k, ttl.orElse(asked.ours() ? lease.ttl() : DEFAULT_TTL)).adopt();
      if (adopted.isEmpty()) {
        return notHeld(k, owner, asked.ours() ? lease.value() : null, asked.ours());
      }
      lease = adopted.get();
    }
    if (!lease.renew()) {
      Outcome out = notHeld(k, owner, lease.value(), true);
      if (out.status() == 503) {
        atRiskFor.put(k, lease.value());
      }
      return out;
    }
    held.put(k, lease);
    atRiskFor.remove(k);
    return LockAnswers.granted(k, lease);
  }

  /** Releases {@code owner}'s hold; never another's. */
  public Outcome release(String key, String owner) {
    Asked asked = ownersHold(key, owner);
    if (asked.answer() != null) {
      return asked.answer();
    }
    String k = asked.key();
    LockLease lease = asked.lease();
    if (asked.ours()) {
      held.remove(k, lease);
    } else {
      lease = asked.locks().lock(k, DEFAULT_TTL).adopt().orElse(null);
    }
    if (lease == null || !lease.release()) {
      Outcome out = notHeld(k, owner, lease == null ? null : lease.value(), asked.ours());
      if (out.status() == 409) {
        out.body().put("released", false);
      }
      return out;
    }
    atRiskFor.remove(k);
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("key", k);
    body.put("released", true);
    return new Outcome(200, body);
  }

  /**
   * What a request on a lock starts from: the key, the locks of the owner it speaks for, and for a
   * renew or release the lease this agent holds for that owner; or the answer that ends it first.
   *
   * @param answer 404 for a key no RedisLock has, the answer while the pod's uid is unknown, or
   *     null to go on
   * @param lease the lease this agent holds for the key when it is the owner's, else null
   */
  private record Asked(Outcome answer, String key, BatonLocks locks, LockLease lease) {
    static Asked answered(Outcome answer) {
      return new Asked(answer, null, null, null);
    }

    boolean ours() {
      return lease != null;
    }
  }

  /** For an acquire or a state: the owner's locks first, then the key as {@code find} has it. */
  private Asked ownersLocks(String key, String owner, Function<String, Optional<String>> find) {
    Optional<BatonLocks> locks = locks(owner);
    if (locks.isEmpty()) {
      return Asked.answered(LockAnswers.uidUnknown());
    }
    Optional<String> k = find.apply(key);
    return k.isEmpty()
        ? Asked.answered(LockAnswers.unknown(keyOf(key)))
        : new Asked(null, k.get(), locks.get(), null);
  }

  /** For a renew or release: the key as this agent knows it, then the owner's locks and lease. */
  private Asked ownersHold(String key, String owner) {
    Optional<String> k = known(key);
    if (k.isEmpty()) {
      return Asked.answered(LockAnswers.unknown(keyOf(key)));
    }
    Optional<BatonLocks> locks = locks(owner);
    if (locks.isEmpty()) {
      return Asked.answered(LockAnswers.uidUnknown());
    }
    LockLease lease = held.get(k.get());
    boolean ours = lease != null && locks.get().owner().wrote(lease.value());
    return new Asked(null, k.get(), locks.get(), ours ? lease : null);
  }

  /**
   * {@code owner}'s hold on the lock, at once; or, given a {@code wait}, as soon as it is no longer
   * what the caller last saw ({@code atRiskSeen}: held and safe, or held and at risk) and at the
   * latest when the wait is over. A hold is at risk once its validity left is under {@link
   * #atRiskMargin} or a renewal through this agent could not be confirmed; it is lost once it is no
   * longer held (expired, released, force-released, taken by another, or lost with Redis's data). A
   * hold counts while it is safe to use by the validity the library computed, so the answer may
   * come a little before Redis lets the key go.
   */
  public Outcome state(String key, String owner, Duration wait, boolean atRiskSeen)
      throws InterruptedException {
    Asked asked = ownersLocks(key, owner, this::known);
    if (asked.answer() != null) {
      return asked.answer();
    }
    String k = asked.key();
    BatonLock lock = asked.locks().lock(k, DEFAULT_TTL);
    long deadline = System.nanoTime() + wait.toNanos();
    Optional<LockLease> hold = hold(k, lock);
    while (hold.isPresent() && atRisk(k, hold.get()) == atRiskSeen) {
      long left = deadline - System.nanoTime();
      if (left <= 0) {
        break;
      }
      // Woken when the hold comes at risk or runs out too, not up to a poll later.
      long validity = hold.get().remainingValidity().toNanos();
      long next = atRiskSeen ? validity : validity - atRiskMargin(hold.get().ttl()).toNanos();
      long pause = Math.min(POLL_NANOS, Math.min(left, next));
      TimeUnit.NANOSECONDS.sleep(Math.max(MIN_PAUSE_NANOS, pause));
      hold = hold(k, lock);
    }
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("key", k);
    body.put("held", hold.isPresent());
    if (hold.isPresent()) {
      LockAnswers.validity(body, hold.get());
      body.put("atRisk", atRisk(k, hold.get()));
      body.put("holder", LockValues.holder(hold.get().value()));
    } else {
      body.put("token", null);
      body.put("expiresAt", null);
      body.put("validForMillis", 0);
      body.put("atRisk", false);
      body.put("holder", lock.holder().orElse(null));
    }
    return new Outcome(200, body);
  }

  /**
   * How long before its validity ends a hold is told at risk: a quarter of its ttl. An application
   * that renews every third of the ttl (docs/api.md) never gets there while its renewals succeed (a
   * renewed hold has about the whole ttl left, and a third of it passes before the next); under a
   * quarter, at least two renewals in a row failed or were late, and a quarter of the ttl is left
   * to finish or abandon the write in hand: 250 ms of a 1 s hold, 7.5 s of the default 30 s.
   */
  static Duration atRiskMargin(Duration ttl) {
    return ttl.dividedBy(4);
  }

  private boolean atRisk(String k, LockLease hold) {
    return hold.remainingValidity().compareTo(atRiskMargin(hold.ttl())) < 0
        || hold.value().equals(atRiskFor.get(k));
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
   * The answer when an operation on {@code owner}'s hold (its value {@code ours}, null when none
   * was found) did not succeed: a 409 saying whether that owner's hold ran out or it never held the
   * lock, and who holds it now, the hold forgotten; a 503 when Redis still has {@code ours}, since
   * then only the answer was missing (too late or lost), and a retry may do.
   *
   * @param hadIt this agent gave {@code owner} a hold of this lock, or found one
   */
  private Outcome notHeld(String k, String owner, String ours, boolean hadIt) {
    LockView view = store.observe(new LockKeys(k));
    if (!view.quorumReachable()) {
      throw new LockUnavailableException(
          "lock " + k + ": Redis did not answer: " + view.unreachableDescriptions());
    }
    String now = view.holder();
    if (ours != null && ours.equals(now)) {
      return LockAnswers.error(
          503,
          "lock "
              + k
              + ": Redis did not confirm in time, and still has the hold of "
              + who(owner)
              + ": try again");
    }
    held.computeIfPresent(k, (x, lease) -> lease.value().equals(now) ? lease : null);
    String holder = now == null ? null : LockValues.holder(now);
    String since =
        holder == null ? "the lock is free" : LockAnswers.describe(now) + " holds it now";
    Map<String, Object> body = new LinkedHashMap<>();
    body.put(
        "error",
        hadIt || ours != null
            ? "the hold of "
                + who(owner)
                + " on lock "
                + k
                + " ran out (its ttl passed, or it was released or force-released): "
                + since
            : "lock " + k + " is not held by " + who(owner) + ": " + since);
    body.put("key", k);
    body.put("holder", holder);
    return new Outcome(409, body);
  }

  /** Who a request speaks for, for people. */
  private String who(String owner) {
    return owner == null ? "pod " + namespace + "/" + pod : "owner '" + owner + "' of this pod";
  }

  /** The key a hold of this agent has, else the key as {@link #resolve} finds it. */
  private Optional<String> known(String key) {
    String k = keyOf(key);
    return held.containsKey(k) ? Optional.of(k) : resolve(key);
  }

  /**
   * The key a request names, when it has a token reservation, which the operator makes as it first
   * reconciles the RedisLock. Looked up once: a key nobody reserved answers at once, whatever wait
   * a request gave.
   */
  private Optional<String> resolve(String key) {
    String k = keyOf(key);
    return redisson.getBucket(new LockKeys(k).reservation(), StringCodec.INSTANCE).isExists()
        ? Optional.of(k)
        : Optional.empty();
  }

  /**
   * A name without a slash is the RedisLock of that name in this pod's namespace ({@code
   * <namespace>/<name>}, its default key), and nothing else: tried as a key of its own first, it
   * let a RedisLock anywhere with {@code key: orders-report} shadow this namespace's lock of that
   * name. A key with a slash is a RedisLock's {@code spec.key} as written (the operator keeps those
   * in their namespace, or under a prefix it shares).
   */
  private String keyOf(String key) {
    return key.contains("/") ? key : namespace + "/" + key;
  }

  /**
   * Locks owned by this pod, once the agent knows the pod's uid, which every holder value names.
   */
  private Optional<BatonLocks> locks(String owner) {
    return podUid
        .get()
        .map(
            uid -> {
              LockOwner whole = LockOwner.pod(namespace, pod, uid);
              return new BatonLocks(store, owner == null ? whole : whole.part(owner));
            });
  }
}
