package dev.baton.operator.redislock;

import dev.baton.client.LockInstance;
import dev.baton.client.LockStore;
import dev.baton.operator.lease.RedisConnections;
import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.lease.RedisSettings;
import dev.baton.operator.lease.RedisUnavailableException;
import java.util.ArrayList;
import java.util.List;

/**
 * The client's {@link LockStore} for a lock's spec, on the operator's shared Redis connections (one
 * Redisson client per Redis). A Redis that cannot be connected to becomes an offline instance, so
 * that a Redlock quorum is counted without it.
 */
record LockStores(RedisConnections connections, RedisSecrets secrets, LockEvents events) {

  static final String DEFAULT_INSTANCE = "default";

  /**
   * @throws RedisSecrets.SecretProblem when a Secret is missing or unusable
   */
  LockRedis of(String namespace, LockSettings settings) {
    if (settings.isRedlock()) {
      // Read every Secret first: one missing Secret makes the spec unusable as a whole.
      List<RedisSettings> all = new ArrayList<>();
      for (String secret : settings.redlock()) {
        all.add(secrets.settings(namespace, secret));
      }
      List<LockInstance> instances = new ArrayList<>();
      for (int i = 0; i < all.size(); i++) {
        instances.add(instance(settings.redlock().get(i), all.get(i)));
      }
      return LockRedis.of(new LockStore(instances, LockStore.REDLOCK_INSTANCE_TIMEOUT));
    }
    RedisSettings redis = secrets.settingsOrDefault(namespace, settings.redisSecret());
    String name = settings.redisSecret() == null ? DEFAULT_INSTANCE : settings.redisSecret();
    return LockRedis.of(new LockStore(List.of(instance(name, redis)), LockStore.SINGLE_TIMEOUT));
  }

  private LockInstance instance(String name, RedisSettings redis) {
    try {
      var redisson = connections.redisson(redis);
      events.listen(redisson);
      return new LockInstance(name, redisson);
    } catch (RedisUnavailableException e) {
      return LockInstance.offline(name, e.getMessage());
    }
  }
}
