package dev.baton.operator.sentinel;

import static dev.baton.testkit.Sandbox.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisConnectionRef;
import dev.baton.client.ElectionKeys;
import dev.baton.operator.config.OperatorConfig;
import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.CapturedOutput;
import dev.baton.testkit.LocalSentinel;
import dev.baton.testkit.RoleWatcher;
import dev.baton.testkit.Sandbox;
import dev.baton.testkit.Timeouts;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;

/**
 * Baton on Redis Sentinel: master, replica and three sentinels, all real processes. The master is
 * killed while the replica lags behind it; Baton follows the failover, keeps its leaders, and no
 * term ever goes back, in status or in Redis.
 */
class SentinelFailoverIT {

  private static final String DATA_PASSWORD = "Data-Pw-5be0c1";
  private static final String SENTINEL_PASSWORD = "Sentinel-Pw-93ad7";
  private static final String ROLE = BatonCluster.ROLE;

  /** The second group uses its own role label, so each group's leaders can be counted apart. */
  private static final String ORDERS_ROLE = "baton.dev/orders-role";

  private static final Duration WAIT = Timeouts.LONG_WAIT;

  @Test
  void keepsLeadersAndRaisesTermsThroughAFailoverToALaggingReplica() throws Exception {
    try (CapturedOutput output = new CapturedOutput();
        LocalSentinel redis = LocalSentinel.start(DATA_PASSWORD, SENTINEL_PASSWORD);
        BatonCluster cluster = new BatonCluster();
        RoleWatcher paymentsRoles = new RoleWatcher(cluster.client, NS, ROLE);
        RoleWatcher ordersRoles = new RoleWatcher(cluster.client, NS, ORDERS_ROLE);
        TermWatcher terms = new TermWatcher(cluster)) {
      // The operator's default Redis is the Sentinel deployment (environment); the orders group
      // reaches the same deployment through a Secret.
      cluster
          .env(OperatorConfig.REDIS_URL, redis.url())
          .env(OperatorConfig.REDIS_PASSWORD, DATA_PASSWORD)
          .env(OperatorConfig.REDIS_SENTINEL_PASSWORD, SENTINEL_PASSWORD);
      cluster.createRedisSecret(
          "orders-redis",
          Map.of(
              "url",
              redis.url(),
              "password",
              DATA_PASSWORD,
              RedisSecrets.SENTINEL_PASSWORD,
              SENTINEL_PASSWORD));
      for (int i = 0; i < 3; i++) {
        cluster.createPod("payments-" + i, "payments");
        cluster.createPod("orders-" + i, "orders");
      }
      cluster.startOperator();
      cluster.create(Sandbox.group("payments", "payments"));
      LeaderGroup orders = Sandbox.group("orders", "orders");
      orders.getSpec().setRedis(new RedisConnectionRef("orders-redis"));
      orders.getSpec().setRoleLabel(ORDERS_ROLE);
      cluster.create(orders);
      cluster.awaitLeader("payments", ROLE);
      cluster.awaitLeader("orders", ORDERS_ROLE);

      // The replica has caught up with the first terms (replication is asynchronous) ...
      String termKey = new ElectionKeys(NS + "/payments").term();
      await().atMost(WAIT).until(() -> "1".equals(redis.get(redis.replica().port(), termKey)));
      // ... then replication stops; the next leaders and their terms exist on the master only.
      redis.cutReplication();
      String paymentsLeader = newLeaderAfterDeleting(cluster, "payments", ROLE);
      String ordersLeader = newLeaderAfterDeleting(cluster, "orders", ORDERS_ROLE);
      long paymentsTerm = term(cluster, "payments");
      assertThat(paymentsTerm).isEqualTo(2);
      assertThat(redis.get(redis.master().port(), termKey)).isEqualTo("2");
      assertThat(redis.get(redis.replica().port(), termKey))
          .as("the replica lags: it never saw term 2")
          .isEqualTo("1");

      redis.killMasterAndAwaitFailover();

      // Baton follows the new master: Redis answers again, the same pods lead, terms went up.
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(50))
          .untilAsserted(
              () -> {
                for (String group : List.of("payments", "orders")) {
                  cluster
                      .assertCondition(group, "RedisAvailable")
                      .as(cluster.describe(group, ROLE))
                      .hasStatus("True");
                  assertThat(term(cluster, group))
                      .as(cluster.describe(group, ROLE))
                      .isGreaterThan(2);
                }
              });
      assertThat(cluster.status("payments").getLeader()).isEqualTo(paymentsLeader);
      assertThat(cluster.status("orders").getLeader()).isEqualTo(ordersLeader);
      assertThat(cluster.leaders(ROLE)).containsExactly(paymentsLeader);
      assertThat(cluster.leaders(ORDERS_ROLE)).containsExactly(ordersLeader);
      int newMaster = redis.masterPort();
      assertThat(Long.parseLong(redis.get(newMaster, termKey)))
          .as("the term counter on the promoted replica")
          .isGreaterThanOrEqualTo(term(cluster, "payments"));

      // And elections go on after the failover.
      long before = term(cluster, "payments");
      String next = newLeaderAfterDeleting(cluster, "payments", ROLE);
      assertThat(next).isNotEqualTo(paymentsLeader);
      assertThat(term(cluster, "payments")).isGreaterThan(before);
      assertThat(Long.parseLong(redis.get(newMaster, termKey)))
          .isEqualTo(term(cluster, "payments"));

      assertThat(terms.decreases())
          .as("terms seen in status, in order: %s", terms.seen())
          .isEmpty();
      assertThat(paymentsRoles.violations()).as("two payments leaders at once").isEmpty();
      assertThat(ordersRoles.violations()).as("two orders leaders at once").isEmpty();

      StringBuilder everything = new StringBuilder(output.text());
      for (String g : List.of("payments", "orders")) {
        everything.append(Serialization.asYaml(cluster.get(g)));
      }
      everything.append(Serialization.asYaml(cluster.client.v1().events().inNamespace(NS).list()));
      assertThat(everything.toString())
          .as("a password in logs, status or Events")
          .doesNotContain(DATA_PASSWORD)
          .doesNotContain(SENTINEL_PASSWORD);
    }
  }

  private static String newLeaderAfterDeleting(BatonCluster cluster, String group, String role) {
    String old = cluster.leaders(role).get(0);
    long oldTerm = term(cluster, group);
    cluster.deletePod(old);
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(20))
        .untilAsserted(
            () -> {
              assertThat(cluster.leaders(role))
                  .as(cluster.describe(group, role))
                  .hasSize(1)
                  .doesNotContain(old);
              assertThat(cluster.status(group).getLeader()).isEqualTo(cluster.leaders(role).get(0));
              assertThat(term(cluster, group)).isGreaterThan(oldTerm);
            });
    return cluster.leaders(role).get(0);
  }

  private static long term(BatonCluster cluster, String group) {
    Long term = cluster.status(group).getTerm();
    return term == null ? 0 : term;
  }

  /** Records every term that the LeaderGroups' status shows, in the order the API sends them. */
  private static final class TermWatcher implements Watcher<LeaderGroup>, AutoCloseable {
    private final Map<String, List<Long>> seen = new ConcurrentHashMap<>();
    private final Watch watch;

    TermWatcher(Sandbox cluster) {
      watch = cluster.client.resources(LeaderGroup.class).inNamespace(NS).watch(this);
    }

    @Override
    public void eventReceived(Action action, LeaderGroup g) {
      if (g.getStatus() != null && g.getStatus().getTerm() != null) {
        seen.computeIfAbsent(
                g.getMetadata().getName(),
                k -> java.util.Collections.synchronizedList(new ArrayList<>()))
            .add(g.getStatus().getTerm());
      }
    }

    @Override
    public void onClose(WatcherException cause) {}

    Map<String, List<Long>> seen() {
      return seen;
    }

    List<String> decreases() {
      List<String> out = new ArrayList<>();
      seen.forEach(
          (group, terms) -> {
            synchronized (terms) {
              for (int i = 1; i < terms.size(); i++) {
                if (terms.get(i) < terms.get(i - 1)) {
                  out.add(group + ": " + terms.get(i - 1) + " -> " + terms.get(i));
                }
              }
            }
          });
      return out;
    }

    @Override
    public void close() {
      watch.close();
    }
  }
}
