package dev.baton.bench.locks;

import dev.baton.client.BatonLock;
import dev.baton.client.BatonLocks;
import dev.baton.client.ElectionKeys;
import dev.baton.client.HolderRecord;
import dev.baton.client.LockInstance;
import dev.baton.client.LockKeys;
import dev.baton.client.LockLease;
import dev.baton.client.LockOwner;
import dev.baton.client.LockStore;
import dev.baton.operator.lease.LeaseStore;
import dev.baton.operator.lease.RedisLeaseStore;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.redisson.api.RBucket;
import org.redisson.api.RLock;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The lock implementations compared, each as one acquire followed by one release of a free lock.
 * Every benchmark thread gets its own key, so the figures are the cost of the operations
 * themselves, not of a contention or retry policy.
 */
public enum LockSubject {
  BATON_LOCK("Baton lock scripts (baton-client, one Redis)", 1) {
    @Override
    LockOp open(List<RedissonClient> clients, String key) {
      reserveLock(clients.subList(0, 1), key);
      return batonLock(BatonLocks.singleRedis(clients.get(0), OWNER).lock(key, TTL));
    }
  },
  BATON_LEASE("Baton lease scripts (operator LeaseStore)", 1) {
    @Override
    LockOp open(List<RedissonClient> clients, String key) {
      RedisLeaseStore store =
          new RedisLeaseStore(clients.get(0), "bench", RedisLeaseStore.ScriptTimer.NONE);
      ElectionKeys keys = new ElectionKeys(key);
      String prefix = HolderRecord.prefix("bench", "bench", "pod", "uid");
      store.reserve(keys, 0, RESERVATION);
      return () -> {
        LeaseStore.Acquisition a = store.acquire(keys, null, prefix, TTL.toMillis());
        check(a.acquired(), "lease acquire");
        check(store.release(keys, a.holder()), "lease release");
      };
    }
  },
  RAW_SET_NX("SET NX PX + compare-and-delete script (Redisson)", 1) {
    @Override
    LockOp open(List<RedissonClient> clients, String key) {
      RBucket<String> bucket = clients.get(0).getBucket(key, StringCodec.INSTANCE);
      RScript script = clients.get(0).getScript(StringCodec.INSTANCE);
      AtomicLong n = new AtomicLong();
      String owner = OWNER.newValue();
      return () -> {
        String value = owner + ":" + n.incrementAndGet();
        check(bucket.setIfAbsent(value, TTL), "SET NX PX");
        Long deleted =
            script.eval(
                key,
                RScript.Mode.READ_WRITE,
                COMPARE_AND_DELETE,
                RScript.ReturnType.LONG,
                List.of(key),
                value);
        check(deleted != null && deleted == 1L, "compare-and-delete");
      };
    }
  },
  REDISSON_RLOCK("Redisson RLock lock()/unlock()", 1) {
    @Override
    LockOp open(List<RedissonClient> clients, String key) {
      RLock lock = clients.get(0).getLock(key);
      return () -> {
        lock.lock();
        lock.unlock();
      };
    }
  },
  REDLOCK_3("Baton Redlock, 3 instances (baton-client)", 3) {
    @Override
    LockOp open(List<RedissonClient> clients, String key) {
      reserveLock(clients.subList(0, 3), key);
      return batonLock(BatonLocks.redlock(named(clients, 3), OWNER).lock(key, TTL));
    }
  },
  REDLOCK_5("Baton Redlock, 5 instances (baton-client)", 5) {
    @Override
    LockOp open(List<RedissonClient> clients, String key) {
      reserveLock(clients.subList(0, 5), key);
      return batonLock(BatonLocks.redlock(named(clients, 5), OWNER).lock(key, TTL));
    }
  };

  static final Duration TTL = Duration.ofSeconds(30);
  static final LockOwner OWNER = LockOwner.external("bench");

  /** The usual release of a SET NX lock: delete only if the value is still ours. */
  static final String COMPARE_AND_DELETE =
      "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end"
          + " return 0";

  /**
   * Terms and tokens reserved for every benchmark key up front, as the operator would reserve them
   * (no operator runs here), so that no measured call waits for a reservation.
   */
  static final long RESERVATION = 1L << 40;

  /** Reserves tokens for a lock key on each of the given Redis instances. */
  static void reserveLock(List<RedissonClient> clients, String key) {
    List<LockInstance> instances = new java.util.ArrayList<>();
    for (int i = 0; i < clients.size(); i++) {
      instances.add(new LockInstance("redis-" + i, clients.get(i)));
    }
    new LockStore(instances, LockStore.SINGLE_TIMEOUT).reserve(new LockKeys(key), 0, RESERVATION);
  }

  private final String description;
  private final int instances;

  LockSubject(String description, int instances) {
    this.description = description;
    this.instances = instances;
  }

  public String description() {
    return description;
  }

  public int instances() {
    return instances;
  }

  /** The operation for one thread and one key, on the first {@link #instances()} clients. */
  abstract LockOp open(List<RedissonClient> clients, String key);

  /** One acquire and one release; throws when either did not happen. */
  @FunctionalInterface
  public interface LockOp {
    void acquireRelease();
  }

  private static LockOp batonLock(BatonLock lock) {
    return () -> {
      LockLease lease =
          lock.tryAcquire()
              .orElseThrow(() -> new IllegalStateException("a free lock was not acquired"));
      check(lease.release(), "release");
    };
  }

  static Map<String, RedissonClient> named(List<RedissonClient> clients, int n) {
    Map<String, RedissonClient> out = new LinkedHashMap<>();
    for (int i = 0; i < n; i++) {
      out.put("redis-" + i, clients.get(i));
    }
    return out;
  }

  private static void check(boolean ok, String what) {
    if (!ok) {
      throw new IllegalStateException(what + " failed on a free lock");
    }
  }
}
