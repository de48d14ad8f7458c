package dev.baton.operator.lease;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.BaseConfig;
import org.redisson.config.BaseMasterSlaveServersConfig;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;
import org.redisson.config.ReadMode;
import org.redisson.config.SingleServerConfig;
import org.redisson.config.SubscriptionMode;
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
  private static final Duration RETRY_DELAY = Duration.ofMillis(50);

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
   * Redisson's own worst case for a call under {@link #tune}: two attempts, each of which may
   * connect first and then wait for the answer, with the delay between them; and a second on top,
   * so our bound only ever ends a call that Redisson would never end.
   */
  public Duration callBound() {
    return commandTimeout.multipliedBy(4).plus(RETRY_DELAY).plusSeconds(1);
  }

  private Config config(RedisSettings settings) {
    Config config = new Config();
    config.setThreads(2);
    config.setNettyThreads(4);
    config.setUseScriptCache(true);
    int timeout = (int) commandTimeout.toMillis();
    // Credentials and TLS trust are client-wide settings since Redisson 4 (the per-server ones
    // are deprecated); the sentinels' own credentials stay on the sentinel settings.
    if (settings.username() != null) {
      config.setUsername(settings.username());
    }
    if (settings.password() != null) {
      config.setPassword(settings.password());
    }
    if (settings.caCertificate() != null) {
      config.setSslTrustManagerFactory(CaCertificates.trustManagers(settings.caCertificate()));
    }
    if (settings.cluster()) {
      useCluster(config, settings, timeout);
    } else if (settings.sentinel()) {
      useSentinels(config, settings, timeout);
    } else {
      useSingle(config, settings, timeout);
    }
    return config;
  }

  private static void useCluster(Config config, RedisSettings settings, int timeout) {
    var cluster =
        config
            .useClusterServers()
            // Scripts change state: every call goes to the master of its slot, never a replica.
            .setReadMode(ReadMode.MASTER)
            .setSubscriptionMode(SubscriptionMode.MASTER)
            // How soon a promoted replica or a moved slot is learned without a redirection.
            .setScanInterval(1000)
            // Start even while a master is down: the groups on the other slots go on.
            .setCheckSlotsCoverage(false)
            .setSlaveConnectionMinimumIdleSize(0);
    settings.clusterAddresses().forEach(cluster::addNodeAddress);
    tuneWithReplicas(cluster, timeout);
  }

  private static void useSentinels(Config config, RedisSettings settings, int timeout) {
    var sentinel =
        config
            .useSentinelServers()
            .setMasterName(settings.sentinelMaster())
            .setCheckSentinelsList(false)
            .setSlaveConnectionMinimumIdleSize(1)
            .setSlaveConnectionPoolSize(2);
    settings.sentinelAddresses().forEach(sentinel::addSentinelAddress);
    if (settings.sentinelUsername() != null) {
      sentinel.setSentinelUsername(settings.sentinelUsername());
    }
    if (settings.sentinelPassword() != null) {
      sentinel.setSentinelPassword(settings.sentinelPassword());
    }
    tuneWithReplicas(sentinel, timeout);
  }

  private static void useSingle(Config config, RedisSettings settings, int timeout) {
    SingleServerConfig single =
        config
            .useSingleServer()
            .setAddress(settings.url())
            .setConnectionMinimumIdleSize(1)
            .setConnectionPoolSize(8)
            .setSubscriptionConnectionMinimumIdleSize(1)
            .setSubscriptionConnectionPoolSize(2);
    tune(single, timeout);
  }

  /**
   * A master with replicas (a cluster's, or the sentinels'): the master's pools as a single
   * server's, one connection kept open and eight at most, one kept for subscriptions.
   */
  private static void tuneWithReplicas(BaseMasterSlaveServersConfig<?> c, int timeoutMillis) {
    c.setMasterConnectionMinimumIdleSize(1)
        .setMasterConnectionPoolSize(8)
        .setSubscriptionConnectionMinimumIdleSize(1);
    tune(c, timeoutMillis);
  }

  private static void tune(BaseConfig<?> c, int timeoutMillis) {
    c.setConnectTimeout(timeoutMillis)
        .setTimeout(timeoutMillis)
        .setRetryAttempts(1)
        .setRetryDelay(new ConstantDelay(RETRY_DELAY))
        .setPingConnectionInterval(1000)
        .setClientName("baton-operator");
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
