package dev.baton.operator.lease;

import dev.baton.client.CaCertificates;
import dev.baton.client.RedisLogin;
import dev.baton.client.RedisUrl;
import dev.baton.client.RedissonConfigs;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One Redisson client per distinct Redis (URL and credentials), shared by every group and lock that
 * uses it. A Redis that cannot be reached is tried again at most once a second, so a reconcile
 * never waits on it twice in a row.
 */
public class RedisConnections implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(RedisConnections.class);
  private static final Duration RECONNECT_BACKOFF = Duration.ofSeconds(1);

  private final Map<RedisSettings, Connection> connections = new ConcurrentHashMap<>();
  private final Map<RedisSettings, Failure> failedAt = new ConcurrentHashMap<>();
  private final RedisLeaseStore.ScriptTimer timer;
  private final Duration commandTimeout;

  public RedisConnections(RedisLeaseStore.ScriptTimer timer, Duration commandTimeout) {
    this.timer = timer;
    this.commandTimeout = commandTimeout;
  }

  /** The lease store on this Redis, connecting first if needed. */
  public LeaseStore leaseStore(RedisSettings settings) {
    return connection(settings).leases();
  }

  /**
   * Connects before this replica may become active, so that a standby taking over does not spend
   * its first reconciles opening connections. A Redis that does not answer yet is connected to
   * later, when first used.
   */
  public void warmUp(RedisSettings settings) {
    try {
      leaseStore(settings);
    } catch (RuntimeException e) {
      log.info("Redis {} does not answer yet: {}", settings.describe(), e.getMessage());
    }
  }

  public RedissonClient redisson(RedisSettings settings) {
    return connection(settings).redisson();
  }

  private Connection connection(RedisSettings settings) {
    Connection existing = connections.get(settings);
    if (existing != null) {
      return existing;
    }
    Failure failed = failedAt.get(settings);
    if (failed != null && System.nanoTime() - failed.nanos() < RECONNECT_BACKOFF.toNanos()) {
      // The same words as the attempt that failed, so a condition keeps saying why.
      throw new RedisUnavailableException(failed.message());
    }
    synchronized (this) {
      existing = connections.get(settings);
      if (existing != null) {
        return existing;
      }
      try {
        RedissonClient redisson = Redisson.create(config(settings));
        Connection c =
            new Connection(
                redisson,
                new RedisLeaseStore(
                    redisson, settings.describe(), settings.cluster(), timer, callBound()));
        connections.put(settings, c);
        failedAt.remove(settings);
        log.info("Connected to Redis {}", settings.describe());
        return c;
      } catch (RuntimeException e) {
        String message =
            "cannot connect to Redis "
                + settings.describe()
                + ": "
                + RedisErrors.explain(e, settings.secrets());
        failedAt.put(settings, new Failure(System.nanoTime(), message));
        throw new RedisUnavailableException(message);
      }
    }
  }

  /**
   * Redisson's own worst case for a call as {@link RedissonConfigs} tunes it: two attempts, each of
   * which may connect first and then wait for the answer, with the delay between them; and a second
   * on top, so our bound only ever ends a call that Redisson would never end.
   */
  public Duration callBound() {
    return commandTimeout.multipliedBy(4).plus(RedissonConfigs.RETRY_DELAY).plusSeconds(1);
  }

  private Config config(RedisSettings settings) {
    return RedissonConfigs.config(
        RedisUrl.parse(settings.url()),
        new RedisLogin(
            settings.username(),
            settings.password(),
            settings.sentinelUsername(),
            settings.sentinelPassword(),
            settings.caCertificate() == null
                ? null
                : CaCertificates.trustManagers(settings.caCertificate())),
        new RedissonConfigs.Sizing("baton-operator", 4, 8, 2, 1, commandTimeout, false));
  }

  /** Whether the last attempt to reach this Redis failed (connect or command), without a call. */
  public boolean lastAnswerFailed(RedisSettings settings) {
    Connection c = connections.get(settings);
    return c == null ? failedAt.containsKey(settings) : c.leases().lastCallFailed();
  }

  @Override
  public void close() {
    connections.values().forEach(c -> c.redisson().shutdown());
    connections.clear();
  }

  private record Connection(RedissonClient redisson, RedisLeaseStore leases) {}

  private record Failure(long nanos, String message) {}
}
