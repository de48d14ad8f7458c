package dev.baton.agent.redis;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.BaseConfig;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;
import org.redisson.config.ReadMode;

/**
 * The agent's Redis, from the operator's settings ({@code BATON_REDIS_URL}: redis://, rediss://,
 * redis-sentinel://host:port,.../master, redis-cluster://host:port,...; credentials apart or in the
 * URL). {@link #describe(String)} is the only form of the URL that reaches a log.
 */
public final class RedisConnection {

  private RedisConnection() {}

  /** A client for the URL; connects lazily, so a Redis that is down at start is retried. */
  public static RedissonClient open(String url, String username, String password) {
    String u = url.trim();
    String plain = withoutUserInfo(u);
    String scheme = u.substring(0, Math.max(0, u.indexOf("://")));
    String userInfo = userInfo(u);
    if (username == null && userInfo != null && userInfo.contains(":")) {
      String name = userInfo.substring(0, userInfo.indexOf(':'));
      username = name.isEmpty() ? null : name;
    }
    if (password == null && userInfo != null) {
      password = userInfo.contains(":") ? userInfo.substring(userInfo.indexOf(':') + 1) : userInfo;
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
    switch (scheme) {
      case "redis", "rediss" -> {
        URI uri = URI.create(plain);
        if (uri.getHost() == null || uri.getPort() <= 0) {
          throw new IllegalArgumentException(
              "Redis URL '" + plain + "' must have a host and a port");
        }
        tune(
            config
                .useSingleServer()
                .setAddress(plain)
                .setConnectionMinimumIdleSize(1)
                .setConnectionPoolSize(4)
                .setSubscriptionConnectionMinimumIdleSize(1)
                .setSubscriptionConnectionPoolSize(1));
      }
      case "redis-sentinel" -> {
        String rest = plain.substring("redis-sentinel://".length());
        int slash = rest.indexOf('/');
        if (slash < 0 || slash == rest.length() - 1) {
          throw new IllegalArgumentException(
              "Redis URL '"
                  + plain
                  + "' must name the master: redis-sentinel://host:port,host:port/master-name");
        }
        var sentinel =
            config
                .useSentinelServers()
                .setMasterName(rest.substring(slash + 1))
                .setCheckSentinelsList(false)
                .setSlaveConnectionMinimumIdleSize(0)
                .setReadMode(ReadMode.MASTER);
        hosts(rest.substring(0, slash), "redis://").forEach(sentinel::addSentinelAddress);
        tune(sentinel);
      }
      case "redis-cluster", "rediss-cluster" -> {
        String rest = plain.substring(plain.indexOf("://") + 3);
        var cluster = config.useClusterServers().setReadMode(ReadMode.MASTER);
        hosts(
                rest.contains("/") ? rest.substring(0, rest.indexOf('/')) : rest,
                scheme.equals("rediss-cluster") ? "rediss://" : "redis://")
            .forEach(cluster::addNodeAddress);
        tune(cluster);
      }
      default ->
          throw new IllegalArgumentException(
              "Redis URL '"
                  + plain
                  + "' must start with redis://, rediss://, redis-sentinel://, redis-cluster:// or"
                  + " rediss-cluster://");
    }
    return Redisson.create(config);
  }

  /** The URL without credentials, for logs and messages. */
  public static String describe(String url) {
    return withoutUserInfo(url.trim());
  }

  private static List<String> hosts(String list, String scheme) {
    List<String> out = new ArrayList<>();
    for (String h : list.split(",")) {
      if (!h.isBlank()) {
        out.add(scheme + h.trim());
      }
    }
    if (out.isEmpty()) {
      throw new IllegalArgumentException("a Redis URL must name at least one host:port");
    }
    return out;
  }

  private static void tune(BaseConfig<?> c) {
    c.setConnectTimeout(1000)
        .setTimeout(1000)
        .setRetryAttempts(1)
        .setRetryDelay(new ConstantDelay(Duration.ofMillis(50)))
        .setPingConnectionInterval(1000)
        .setClientName("baton-agent");
  }

  private static String userInfo(String url) {
    int scheme = url.indexOf("://");
    int at = url.lastIndexOf('@');
    return scheme < 0 || at < scheme ? null : url.substring(scheme + 3, at);
  }

  private static String withoutUserInfo(String url) {
    int scheme = url.indexOf("://");
    int at = url.lastIndexOf('@');
    if (scheme < 0 || at < scheme) {
      return url;
    }
    return url.substring(0, scheme + 3) + url.substring(at + 1);
  }
}
