package dev.baton.bench.locks;

import dev.baton.testkit.LocalRedis;
import java.util.ArrayList;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Independent redis-server processes, each with its own Redisson client, configured alike for every
 * implementation under test: script cache on (EVALSHA, as the operator runs its scripts), no
 * background PINGs (they would count as round trips).
 */
public final class RedisFleet implements AutoCloseable {

  private final List<LocalRedis> servers = new ArrayList<>();
  private final List<RedissonClient> clients = new ArrayList<>();

  public static RedisFleet start(int instances) {
    RedisFleet fleet = new RedisFleet();
    try {
      for (int i = 0; i < instances; i++) {
        LocalRedis redis = LocalRedis.start();
        fleet.servers.add(redis);
        fleet.clients.add(client(redis.url()));
      }
      return fleet;
    } catch (RuntimeException e) {
      fleet.close();
      throw e;
    }
  }

  static RedissonClient client(String url) {
    Config config = new Config();
    config.setUseScriptCache(true);
    config
        .useSingleServer()
        .setAddress(url)
        .setPingConnectionInterval(0)
        .setConnectionMinimumIdleSize(16)
        .setConnectionPoolSize(32);
    return Redisson.create(config);
  }

  public List<RedissonClient> clients() {
    return clients;
  }

  public List<LocalRedis> servers() {
    return servers;
  }

  public List<RedisInfo> info() {
    return servers.stream().map(s -> RedisInfo.of(s.port())).toList();
  }

  @Override
  public void close() {
    clients.forEach(RedissonClient::shutdown);
    servers.forEach(LocalRedis::close);
  }
}
