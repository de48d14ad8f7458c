package dev.baton.client;

import java.time.Duration;
import java.util.Map;
import org.redisson.api.RedissonClient;

/**
 * An application's entry point to Baton locks: where the locks live and who takes them.
 *
 * <pre>{@code
 * BatonLocks locks = BatonLocks.singleRedis(redisson, LockOwner.fromEnvironment());
 * BatonLock migration = locks.lock("shop/nightly-migration", Duration.ofSeconds(30));
 * try (LockLease lease = migration.tryAcquire(Duration.ofSeconds(5)).orElseThrow()) {
 *   migrate(lease.token());
 * }
 * }</pre>
 */
public final class BatonLocks {

  private final LockStore store;
  private final LockOwner owner;

  public BatonLocks(LockStore store, LockOwner owner) {
    this.store = store;
    this.owner = owner;
  }

  /** Locks in one Redis (the RedisLock's {@code spec.redis}, or the operator's default Redis). */
  public static BatonLocks singleRedis(RedissonClient redisson, LockOwner owner) {
    return new BatonLocks(LockStore.single(redisson), owner);
  }

  /**
   * Locks over a Redlock quorum: one client per independent master, in the order of the RedisLock's
   * {@code spec.redlock.instances}; the map keys name them in errors.
   */
  public static BatonLocks redlock(Map<String, RedissonClient> instances, LockOwner owner) {
    return new BatonLocks(LockStore.redlock(instances), owner);
  }

  /**
   * A lock by its key: the RedisLock's {@code spec.key}, or {@code <namespace>/<name>} when the
   * spec names none.
   */
  public BatonLock lock(String key, Duration ttl) {
    return new BatonLock(store, new LockKeys(key), ttl, owner);
  }

  public LockOwner owner() {
    return owner;
  }
}
