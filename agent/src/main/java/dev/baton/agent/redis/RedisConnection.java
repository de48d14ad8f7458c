package dev.baton.agent.redis;

import dev.baton.client.RedisUrl;
import java.time.Duration;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;
import org.redisson.config.ReadMode;

/**
 * The agent's Redis, from the operator's settings ({@code BATON_REDIS_URL}, read by {@link
 * RedisUrl}; credentials apart or in the URL, those apart winning). {@link #describe(String)} is
 * the only form of the URL that reaches a log.
 */
public final class RedisConnection {

  /** How long a connection may take to open, and a call to be answered (then it failed). */
  public static final Duration CONNECT_WITHIN = Duration.ofSeconds(1);

  public static final Duration ANSWER_WITHIN = Duration.ofSeconds(1);

  private RedisConnection() {}

  /** A client for the URL; connects lazily, so a Redis that is down at start is retried. */
  public static RedissonClient open(String url, String username, String password) {
    RedisUrl u = RedisUrl.parse(url);
    if (username == null) {
      username = u.username();
    }
    if (password == null) {
      password = u.password();
    }
    Config config = new Config();
    config.setThreads(2);
    config.setNettyThreads(2);
    config.setLazyInitialization(true);
    if (username != null && !username.isBlank()) {
      config.setUsername(username);
    }
    if (password != null && !password.isBlank()) {
      config.setPassword(password);
    }
    switch (u.kind()) {
      case SINGLE ->
          tune(
              config
                  .useSingleServer()
                  .setAddress(u.describe())
                  .setConnectionMinimumIdleSize(1)
                  .setConnectionPoolSize(4)
                  .setSubscriptionConnectionMinimumIdleSize(1)
                  .setSubscriptionConnectionPoolSize(1));
      case SENTINEL -> {
        var sentinel =
            config
                .useSentinelServers()
                .setMasterName(u.sentinelMaster())
                .setCheckSentinelsList(false)
                .setSlaveConnectionMinimumIdleSize(0)
                .setReadMode(ReadMode.MASTER);
        u.nodes().forEach(sentinel::addSentinelAddress);
        tune(sentinel);
      }
      case CLUSTER -> {
        var cluster = config.useClusterServers().setReadMode(ReadMode.MASTER);
        u.nodes().forEach(cluster::addNodeAddress);
        tune(cluster);
      }
    }
    return Redisson.create(config);
  }

  /** The URL without credentials, for logs and messages. */
  public static String describe(String url) {
    return RedisUrl.parse(url).describe();
  }

  private static void tune(BaseConfig<?> c) {
    c.setConnectTimeout((int) CONNECT_WITHIN.toMillis())
        .setTimeout((int) ANSWER_WITHIN.toMillis())
        .setRetryAttempts(1)
        .setRetryDelay(new ConstantDelay(Duration.ofMillis(50)))
        .setPingConnectionInterval(1000)
        .setClientName("baton-agent");
  }
}
