package dev.baton.operator.redislock;

import dev.baton.client.LockKeys;
import dev.baton.client.LockResult;
import dev.baton.client.LockStore;
import dev.baton.client.LockView;
import java.time.Duration;

/**
 * The Redis calls a RedisLock reconcile makes, as {@link LockStore} answers them. An interface of
 * its own so that the act step can be tested against Redis held in memory.
 */
interface LockRedis {

  LockView observe(LockKeys keys);

  LockResult acquire(LockKeys keys, String value, Duration ttl, long floor, long reserved);

  LockResult renew(LockKeys keys, String value, Duration ttl, long token);

  /** Compare-and-delete: only where {@code value} is the lock's value. */
  LockResult release(LockKeys keys, String value);

  LockView reserve(LockKeys keys, long floor, long ceiling);

  static LockRedis of(LockStore store) {
    return new LockRedis() {
      @Override
      public LockView observe(LockKeys keys) {
        return store.observe(keys);
      }

      @Override
      public LockResult acquire(
          LockKeys keys, String value, Duration ttl, long floor, long reserved) {
        return store.acquire(keys, value, ttl, floor, reserved);
      }

      @Override
      public LockResult renew(LockKeys keys, String value, Duration ttl, long token) {
        return store.renew(keys, value, ttl, token);
      }

      @Override
      public LockResult release(LockKeys keys, String value) {
        return store.release(keys, value);
      }

      @Override
      public LockView reserve(LockKeys keys, long floor, long ceiling) {
        return store.reserve(keys, floor, ceiling);
      }
    };
  }
}
