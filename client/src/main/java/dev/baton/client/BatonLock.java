package dev.baton.client;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One lock, as an application takes it: {@code SET key value NX PX ttl} with a fresh value per
 * acquisition and a fencing token issued in the same script. Thread-safe; each successful attempt
 * returns its own {@link LockLease}.
 */
public final class BatonLock {

  /** The random pause between attempts, so that contenders do not retry in lockstep. */
  static final long RETRY_MIN_MILLIS = 5;

  static final long RETRY_MAX_MILLIS = 40;

  /** How long any attempt waits for the operator to reserve tokens of a new or reset lock. */
  public static final Duration RESERVATION_WAIT = Duration.ofSeconds(2);

  private final LockStore store;
  private final LockKeys keys;
  private final Duration ttl;
  private final LockOwner owner;
  private final AtomicLong highestToken = new AtomicLong();

  BatonLock(LockStore store, LockKeys keys, Duration ttl, LockOwner owner) {
    if (ttl.toMillis() < 10) {
      throw new IllegalArgumentException("a lock ttl must be at least 10ms");
    }
    this.store = store;
    this.keys = keys;
    this.ttl = ttl;
    this.owner = owner;
  }

  /**
   * One attempt: the lease when the lock was free, else empty. A lock whose tokens are not reserved
   * yet (see {@link #tryAcquire(Duration)}) is waited for up to {@link #RESERVATION_WAIT}.
   *
   * @throws LockUnavailableException as {@link #tryAcquire(Duration)}
   */
  public Optional<LockLease> tryAcquire() {
    return tryAcquire(Duration.ZERO);
  }

  /**
   * Tries until the lock is taken or {@code wait} has passed, pausing a random 5 to 40 ms between
   * attempts. Empty when someone else held it all along.
   *
   * <p>Tokens are only issued within a range the Baton operator has reserved and recorded in the
   * RedisLock's status, so that they keep growing even after Redis loses its data. A new lock, or a
   * Redis that restarted or failed over, has no reservation until the operator makes one (as it
   * reconciles the RedisLock); for that, attempts go on for at least {@link #RESERVATION_WAIT}.
   *
   * @throws LockUnavailableException when the last attempt could not reach a majority of instances,
   *     or still found no token reservation (no RedisLock for this key, or the operator is not
   *     running)
   */
  public Optional<LockLease> tryAcquire(Duration wait) {
    long start = System.nanoTime();
    long deadline = start + wait.toNanos();
    long reservationDeadline = start + Math.max(wait.toNanos(), RESERVATION_WAIT.toNanos());
    while (true) {
      Attempt a = attempt();
      LockResult r = a.result();
      if (r.ok()) {
        return Optional.of(lease(a));
      }
      long pause = ThreadLocalRandom.current().nextLong(RETRY_MIN_MILLIS, RETRY_MAX_MILLIS + 1);
      long next = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(pause);
      boolean waiting = r.view().waitsForReservation();
      if (next - (waiting ? reservationDeadline : deadline) > 0) {
        if (!r.view().quorumReachable()) {
          throw unavailable(r.view());
        }
        if (waiting) {
          throw new LockUnavailableException(
              "lock "
                  + keys.key()
                  + ": no fencing tokens are"
                  + " reserved for it on Redis; the Baton operator reserves them for the RedisLock"
                  + " of this key (is there one, and is the operator running?)");
        }
        return Optional.empty();
      }
      try {
        Thread.sleep(pause);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return Optional.empty();
      }
    }
  }

  /** Who holds the lock now ({@code namespace/name} for a pod), or empty when it is free. */
  public Optional<String> holder() {
    LockView view = store.observe(keys);
    if (!view.quorumReachable()) {
      throw unavailable(view);
    }
    return Optional.ofNullable(view.holder()).map(LockValues::holder);
  }

  /**
   * This owner's hold on the lock as Redis has it, as a lease to renew or release: for a process
   * that speaks for the owner that took the lock but has lost its lease, as the Baton agent after
   * it restarted in the same pod. The owner is the pod (uid included), not the process: any process
   * of that pod can adopt the pod's hold. Empty when the lock is free or another owner's.
   *
   * <p>The token is the counter read beside the value: the hold's own token, or higher when the
   * operator raised the counter since (after Redis restarted or failed over; see {@code
   * counter-reserve.lua}), which fences as well, being above every earlier hold's token and below
   * every later one's. The validity is the time Redis gives the key, less the clock-drift
   * allowance; {@link LockLease#renew()} extends the hold by this lock's ttl.
   *
   * @throws LockUnavailableException when too few instances answered to tell
   */
  public Optional<LockLease> adopt() {
    long start = System.nanoTime();
    LockView view = store.observe(keys);
    if (!view.quorumReachable()) {
      throw unavailable(view);
    }
    String value = view.holder();
    if (!owner.wrote(value)) {
      return Optional.empty();
    }
    long token = view.tokenOf(value);
    highestToken.accumulateAndGet(token, Math::max);
    long validity = LockStore.validity(view.pttlMillis(), start);
    return Optional.of(
        new LockLease(
            store, keys, ttl, value, token, start + TimeUnit.MILLISECONDS.toNanos(validity)));
  }

  /** The highest token this process has been given for this lock. */
  public long highestToken() {
    return highestToken.get();
  }

  public String key() {
    return keys.key();
  }

  public Duration ttl() {
    return ttl;
  }

  private Attempt attempt() {
    String value = owner.newValue();
    long start = System.nanoTime();
    // The floor keeps this process's tokens growing even if every instance lost its data.
    return new Attempt(value, start, store.acquire(keys, value, ttl, highestToken.get()));
  }

  private LockLease lease(Attempt a) {
    highestToken.accumulateAndGet(a.result().token(), Math::max);
    return new LockLease(
        store,
        keys,
        ttl,
        a.value(),
        a.result().token(),
        a.startNanos() + TimeUnit.MILLISECONDS.toNanos(a.result().validityMillis()));
  }

  private record Attempt(String value, long startNanos, LockResult result) {}

  private LockUnavailableException unavailable(LockView view) {
    return new LockUnavailableException(
        "lock "
            + keys.key()
            + ": only "
            + view.reachable()
            + " of "
            + view.instances().size()
            + " Redis instances answered, "
            + view.quorum()
            + " needed; unreachable: "
            + String.join(", ", view.unreachableDescriptions()));
  }
}
