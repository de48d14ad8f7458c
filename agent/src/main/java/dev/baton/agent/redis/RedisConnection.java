package dev.baton.agent.redis;

import dev.baton.client.RedisLogin;
import dev.baton.client.RedisUrl;
import dev.baton.client.RedissonConfigs;
import java.time.Duration;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * The agent's Redis, from the operator's settings ({@code BATON_REDIS_URL}, read by {@link
 * RedisUrl}; credentials apart or in the URL, those apart winning). {@link #describe(String)} is
 * the only form of the URL that reaches a log.
 */
public final class RedisConnection {

  /** How long a connection may take to open, and a call to be answered (then it failed). */
  public static final Duration CONNECT_WITHIN = Duration.ofSeconds(1);

  public static final Duration ANSWER_WITHIN = Duration.ofSeconds(1);

  /**
   * What the agent asks of Redisson: a few connections, since one runs beside every pod; started
   * lazily, so a Redis that is down at start is retried.
   */
  private static final RedissonConfigs.Sizing SIZING =
      new RedissonConfigs.Sizing("baton-agent", 2, 4, 1, 0, ANSWER_WITHIN, true);

  private RedisConnection() {}

  /** A client for the URL; credentials given here win over those in the URL. */
  public static RedissonClient open(String url, String username, String password) {
    return open(url, RedisLogin.of(username, password));
  }

  /** A client for the URL as this login reaches it (the sentinels' own credentials too). */
  public static RedissonClient open(String url, RedisLogin login) {
    return Redisson.create(RedissonConfigs.config(RedisUrl.parse(url), login, SIZING));
  }

  /** The URL without credentials, for logs and messages. */
  public static String describe(String url) {
    return RedisUrl.parse(url).describe();
  }
}
