package dev.baton.agent.redis;

import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.testkit.LocalRedis;
import dev.baton.testkit.LocalRedisCluster;
import dev.baton.testkit.LocalSentinel;
import dev.baton.testkit.RespClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The agent's client on a sentinel's master and on a cluster, as on a single server: it answers,
 * subscribes, and keeps a few connections, since an agent runs beside every pod of a group.
 * Redisson's own pools would keep 24 open to each master from the first call on.
 */
class RedisConnectionPoolsIT {

  private static final String PASSWORD = "Agent-Data-Pw-5b81e";

  /** The agent's pool (4) and one subscription connection. */
  private static final int MOST_PER_MASTER = 5;

  /** Calls in flight at once: more than the pool, so a pool without a bound would grow. */
  private static final int CALLS = 40;

  @Test
  void onASentinelsMasterItKeepsAFewConnections() {
    try (LocalSentinel redis = LocalSentinel.start(PASSWORD, null)) {
      RedissonClient client = RedisConnection.open(redis.url(), null, PASSWORD);
      try {
        exercise(client);
        int master = redis.masterPort();
        assertStaysBounded(
            "on the master", () -> agentConnections(master, PASSWORD), MOST_PER_MASTER);
        assertStaysBounded(
            "on the replica", () -> agentConnections(redis.replica().port(), PASSWORD), 2);
      } finally {
        client.shutdown();
      }
    }
  }

  @Test
  void onAClusterItKeepsAFewConnectionsToEachNode() {
    try (LocalRedisCluster cluster = LocalRedisCluster.start()) {
      RedissonClient client = RedisConnection.open(cluster.url(), null, null);
      try {
        exercise(client);
        for (LocalRedis node : cluster.nodes()) {
          assertStaysBounded(
              "on node " + node.port(), () -> agentConnections(node.port(), null), MOST_PER_MASTER);
        }
      } finally {
        client.shutdown();
      }
    }
  }

  /** Many calls at once, on keys of every slot, and a message through a subscription. */
  private static void exercise(RedissonClient client) {
    List<String> heard = new CopyOnWriteArrayList<>();
    client
        .getTopic("baton:gates", StringCodec.INSTANCE)
        .addListener(String.class, (channel, message) -> heard.add(message));
    List<CompletableFuture<?>> calls = new ArrayList<>();
    for (int i = 0; i < CALLS; i++) {
      calls.add(
          client
              .getBucket("pools-" + i, StringCodec.INSTANCE)
              .setAsync("v" + i)
              .toCompletableFuture());
    }
    CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).join();
    for (int i = 0; i < CALLS; i++) {
      assertThat(client.getBucket("pools-" + i, StringCodec.INSTANCE).get()).isEqualTo("v" + i);
    }
    await("a message through the subscription")
        .atMost(WAIT)
        .until(
            () -> {
              client.getTopic("baton:gates", StringCodec.INSTANCE).publish("hello");
              return heard.contains("hello");
            });
  }

  /** The count stays at most {@code most} for a while: pools fill in the background. */
  private static void assertStaysBounded(String where, IntSupplier count, int most) {
    await(where)
        .atMost(WAIT)
        .during(Duration.ofMillis(700))
        .pollInterval(Duration.ofMillis(100))
        .untilAsserted(
            () ->
                assertThat(count.getAsInt())
                    .as("agent connections " + where)
                    .isLessThanOrEqualTo(most));
  }

  /** The connections of clients named baton-agent on a server. */
  private static int agentConnections(int port, String password) {
    try (RespClient c = RespClient.connect(port, null, null, password)) {
      String list = c.text("CLIENT", "LIST");
      return (int) list.lines().filter(l -> l.contains(" name=baton-agent ")).count();
    }
  }
}
