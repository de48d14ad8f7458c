package dev.baton.operator.redislock;

import dev.baton.testkit.LocalRedis;
import java.time.Duration;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;

/** A Redisson client as an application would configure one, for a test's redis-server. */
final class TestRedisson {

  private TestRedisson() {}

  static RedissonClient connect(LocalRedis redis) {
    Config config = new Config();
    config.setThreads(2);
    config.setNettyThreads(4);
    config.setUseScriptCache(true);
    // Connect on first use: an application must start even while a Redlock instance is down.
    config.setLazyInitialization(true);
    config
        .useSingleServer()
        .setAddress(redis.url())
        .setConnectionMinimumIdleSize(1)
        .setConnectionPoolSize(16)
        .setSubscriptionConnectionMinimumIdleSize(0)
        .setConnectTimeout(500)
        .setTimeout(500)
        .setRetryAttempts(1)
        .setRetryDelay(new ConstantDelay(Duration.ofMillis(50)))
        .setPingConnectionInterval(500);
    return Redisson.create(config);
  }
}
