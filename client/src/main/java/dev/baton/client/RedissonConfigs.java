package dev.baton.client;

import java.time.Duration;
import org.redisson.config.BaseConfig;
import org.redisson.config.BaseMasterSlaveServersConfig;
import org.redisson.config.Config;
import org.redisson.config.ConstantDelay;
import org.redisson.config.ReadMode;
import org.redisson.config.SubscriptionMode;

/**
 * The Redisson configuration of both Baton processes, the operator and the agent, for one Redis URL
 * (a single server, a sentinel's master, or a cluster): scripts and subscriptions on masters only,
 * one retry, and every pool bounded by what the process asks for. Redisson's own pools keep 24
 * connections open to each master and each replica of a sentinel or a cluster, 64 at most, for
 * every client; the agent runs beside every pod of a group, so those would multiply by the pods.
 */
public final class RedissonConfigs {

  /** The pause before a call's one retry. */
  public static final Duration RETRY_DELAY = Duration.ofMillis(50);

  /**
   * What a process asks of its client.
   *
   * @param clientName what {@code CLIENT LIST} shows for its connections
   * @param nettyThreads the client's I/O threads
   * @param connections the most connections to a master, one of them kept open
   * @param subscriptionConnections the most connections for subscriptions, one kept open
   * @param replicaConnections connections kept open to each replica of a sentinel's master, where
   *     no call is read from; two at most, and none kept open to a cluster's replicas
   * @param timeout how long a connection may take to open, and a call to be answered
   * @param lazy connect at the first call rather than when the client is made, so that a process
   *     starts while its Redis is down
   */
  public record Sizing(
      String clientName,
      int nettyThreads,
      int connections,
      int subscriptionConnections,
      int replicaConnections,
      Duration timeout,
      boolean lazy) {}

  private RedissonConfigs() {}

  /** A client configuration for the URL, never holding its credentials anywhere but the login. */
  public static Config config(RedisUrl url, RedisLogin login, Sizing sizing) {
    Config config = new Config();
    config.setThreads(2);
    config.setNettyThreads(sizing.nettyThreads());
    config.setLazyInitialization(sizing.lazy());
    // Scripts go by their digest (EVALSHA), loaded once: Redisson's default, said here because
    // the ACLs Baton writes allow EVALSHA and SCRIPT LOAD for it.
    config.setUseScriptCache(true);
    // Credentials and TLS trust are client-wide since Redisson 4 (the per-server ones are
    // deprecated); the sentinels' own credentials stay on the sentinel settings.
    RedisLogin who = login.orFrom(url);
    String username = who.username();
    String password = who.password();
    if (username != null && !username.isBlank()) {
      config.setUsername(username);
    }
    if (password != null && !password.isBlank()) {
      config.setPassword(password);
    }
    if (login.trust() != null) {
      config.setSslTrustManagerFactory(login.trust());
    }
    switch (url.kind()) {
      case SINGLE -> single(config, url, sizing);
      case SENTINEL -> sentinels(config, url, login, sizing);
      case CLUSTER -> cluster(config, url, sizing);
    }
    return config;
  }

  private static void single(Config config, RedisUrl url, Sizing sizing) {
    tune(
        config
            .useSingleServer()
            .setAddress(url.describe())
            .setConnectionMinimumIdleSize(1)
            .setConnectionPoolSize(sizing.connections())
            .setSubscriptionConnectionMinimumIdleSize(1)
            .setSubscriptionConnectionPoolSize(sizing.subscriptionConnections()),
        sizing);
  }

  private static void sentinels(Config config, RedisUrl url, RedisLogin login, Sizing sizing) {
    var sentinel =
        config
            .useSentinelServers()
            .setMasterName(url.sentinelMaster())
            // The sentinels named in the URL are the ones reachable; the ones they report may
            // sit behind addresses this process cannot reach.
            .setCheckSentinelsList(false)
            .setSlaveConnectionMinimumIdleSize(sizing.replicaConnections());
    url.nodes().forEach(sentinel::addSentinelAddress);
    if (login.sentinelUsername() != null) {
      sentinel.setSentinelUsername(login.sentinelUsername());
    }
    if (login.sentinelPassword() != null) {
      sentinel.setSentinelPassword(login.sentinelPassword());
    }
    withReplicas(sentinel, sizing);
  }

  private static void cluster(Config config, RedisUrl url, Sizing sizing) {
    var cluster =
        config
            .useClusterServers()
            // How soon a promoted replica or a moved slot is learned without a redirection.
            .setScanInterval(1000)
            // Start even while a master is down: the keys on the other slots go on.
            .setCheckSlotsCoverage(false)
            .setSlaveConnectionMinimumIdleSize(0);
    url.nodes().forEach(cluster::addNodeAddress);
    withReplicas(cluster, sizing);
  }

  private static void withReplicas(BaseMasterSlaveServersConfig<?> c, Sizing sizing) {
    // Scripts change state: every call goes to a master, never a replica.
    c.setReadMode(ReadMode.MASTER)
        .setSubscriptionMode(SubscriptionMode.MASTER)
        .setSlaveConnectionPoolSize(2)
        .setMasterConnectionMinimumIdleSize(1)
        .setMasterConnectionPoolSize(sizing.connections())
        .setSubscriptionConnectionMinimumIdleSize(1)
        .setSubscriptionConnectionPoolSize(sizing.subscriptionConnections());
    tune(c, sizing);
  }

  private static void tune(BaseConfig<?> c, Sizing sizing) {
    int millis = (int) sizing.timeout().toMillis();
    c.setConnectTimeout(millis)
        .setTimeout(millis)
        .setRetryAttempts(1)
        .setRetryDelay(new ConstantDelay(RETRY_DELAY))
        .setPingConnectionInterval(1000)
        .setClientName(sizing.clientName());
  }
}
