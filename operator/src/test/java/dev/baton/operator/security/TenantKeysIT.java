package dev.baton.operator.security;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.ClusterTest;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * A namespace tenant's Redis keys, against the real operator, a real redis-server and the mock API
 * server: a LeaderGroup or RedisLock naming another namespace's key, one of Baton's own, or a key
 * another resource holds is refused with a condition and an Event that say why, and nothing is
 * written to Redis for it; a prefix the operator shares is usable from any namespace; the younger
 * of two resources on one key takes it over once the elder is gone. What the schema refuses (CEL
 * included) is {@link BadInputTest}'s and {@code CelRulesTest}'s.
 */
class TenantKeysIT extends ClusterTest {

  private static final String DEV = "dev";

  @Test
  void aKeyOfAnotherNamespaceOrOfBatonItselfIsRefusedAndNothingIsWrittenToRedis() {
    cluster.createPods("orders", 2);
    namespace(DEV);
    for (int i = 0; i < 2; i++) {
      cluster.createPod(Sandbox.readyPod(DEV, "intruder-" + i, Map.of("app", "intruder")));
      cluster.createPod(Sandbox.readyPod(DEV, "jobs-" + i, Map.of("app", "jobs")));
    }
    cluster.env("BATON_SHARED_KEY_PREFIXES", "global/").startOperator();
    cluster.create(BatonCluster.group("orders", "orders"));
    String leader = cluster.awaitLeader("orders", ROLE);
    String record = redis("GET", "baton:{shop/orders}:leader");

    cluster.create(devGroup("steal", "shop/orders"));
    cluster.create(devGroup("gate", "gate:shop/orders"));
    cluster.create(devGroup("operator", "baton-operator/default"));
    cluster.create(devLock("reports", "shop/orders-report"));
    LeaderGroup spanning = devGroup("spanning", "global/jobs");
    spanning.getSpec().getSelector().setMatchLabels(Map.of("app", "jobs"));
    cluster.create(spanning);

    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertRefused(
                  group("steal"), "KeyOutsideNamespace", "'shop/orders' is outside namespace dev");
              assertRefused(group("gate"), "InvalidSpec", "'gate:shop/orders' is reserved");
              assertRefused(
                  group("operator"), "InvalidSpec", "'baton-operator/default' is reserved");
              assertRefused(
                  lock("reports"),
                  "KeyOutsideNamespace",
                  "'shop/orders-report' is outside namespace dev: a key must start with 'dev/'"
                      + " or 'locks/dev/'"
                      + " or a prefix the operator shares (global/)");
            });
    assertThat(eventMessages("steal", "InvalidSpec"))
        .anySatisfy(m -> assertThat(m).contains("is outside namespace dev"));
    assertThat(eventMessages("gate", "InvalidSpec"))
        .anySatisfy(m -> assertThat(m).contains("is reserved"));
    assertThat(eventMessages("reports", "InvalidSpec"))
        .anySatisfy(m -> assertThat(m).contains("is outside namespace dev"));

    // A shared prefix is any namespace's to use.
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> assertThat(redis("GET", "baton:{global/jobs}:leader")).contains("|dev|jobs-"));

    // Nothing reached Redis for the refused ones; shop's election is as it was.
    await()
        .during(Duration.ofSeconds(1))
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(redis("KEYS", "baton:{gate:*")).isEqualTo("*0");
              assertThat(redis("KEYS", "baton:{baton-operator/default}:term*")).isEqualTo("*0");
              assertThat(redis("KEYS", "baton:{shop/orders-report}*")).isEqualTo("*0");
              assertThat(redis("GET", "baton:{shop/orders}:leader")).isEqualTo(record);
              assertThat(cluster.leaders(ROLE)).containsExactly(leader);
            });
    assertThat(cluster.term("orders")).isEqualTo(1);
  }

  @Test
  void theYoungerOfTwoResourcesOnOneKeyIsRefusedNamingTheElderUntilItIsGone() {
    cluster.createPods("first", 2);
    cluster.createPods("second", 2);
    cluster.startOperator();
    LeaderGroup first = BatonCluster.group("first", "first");
    first.getSpec().setElectionKey("shop/shared");
    cluster.create(first);
    String leader = cluster.awaitLeader("first", ROLE);
    String record = redis("GET", "baton:{shop/shared}:leader");

    LeaderGroup second = BatonCluster.group("second", "second");
    second.getSpec().setElectionKey("shop/shared");
    cluster.create(second);
    RedisLock third = BatonCluster.redisLock("third", "30s");
    third.getSpec().setKey("shop/shared");
    cluster.create(third);

    String usedByFirst = "'shop/shared' is used by LeaderGroup shop/first, which is older";
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertRefused(cluster.get("second"), "KeyInUse", usedByFirst);
              assertRefused(cluster.lock("third"), "KeyInUse", usedByFirst);
            });
    assertThat(events("second"))
        .anySatisfy(
            e -> {
              assertThat(e.getReason()).isEqualTo("KeyInUse");
              assertThat(e.getType()).isEqualTo("Warning");
              assertThat(e.getMessage()).contains(usedByFirst);
            });
    await()
        .during(Duration.ofSeconds(1))
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(redis("GET", "baton:{shop/shared}:leader")).isEqualTo(record);
              assertThat(cluster.leaders(ROLE)).containsExactly(leader);
              assertThat(cluster.roles(ROLE)).doesNotContainKeys("second-0", "second-1");
              assertThat(redis("EXISTS", "baton:{shop/shared}:lock")).isEqualTo(":0");
              assertThat(redis("EXISTS", "baton:{shop/shared}:reserved")).isEqualTo(":0");
            });

    // The elder goes: the younger group is woken and takes the key, the lock now names it.
    String reserved = redis("GET", "baton:{shop/shared}:term-reserved");
    long firstCeiling =
        Long.parseLong(reserved.substring(reserved.lastIndexOf('\n') + 1).split(":")[0]);
    cluster.client.resource(cluster.get("first")).delete();
    String next = cluster.awaitLeader("second", ROLE);
    assertThat(next).startsWith("second-");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(condition(cluster.get("second"), "Invalid"))
                  .get()
                  .extracting(Condition::getStatus)
                  .isEqualTo("False");
              assertRefused(
                  cluster.lock("third"),
                  "KeyInUse",
                  "'shop/shared' is used by LeaderGroup shop/second, which is older");
            });
    // first's reservation is not in second's status: second records a ceiling above it before its
    // first term, so terms first could still have drawn are covered after a loss of Redis's data.
    assertThat(cluster.get("second").getStatus().getReservedTerm()).isGreaterThan(firstCeiling);
    assertThat(cluster.term("second")).isGreaterThan(1);
  }

  private void namespace(String name) {
    if (cluster.client.namespaces().withName(name).get() == null) {
      cluster
          .client
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
          .create();
    }
  }

  private static LeaderGroup devGroup(String name, String key) {
    LeaderGroup g = BatonCluster.group(name, "intruder");
    g.getMetadata().setNamespace(DEV);
    g.getSpec().setElectionKey(key);
    return g;
  }

  private static RedisLock devLock(String name, String key) {
    RedisLock l = BatonCluster.redisLock(name, "30s");
    l.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(DEV).build());
    l.getSpec().setKey(key);
    return l;
  }

  private LeaderGroup group(String name) {
    return cluster.client.resources(LeaderGroup.class).inNamespace(DEV).withName(name).get();
  }

  private RedisLock lock(String name) {
    return cluster.client.resources(RedisLock.class).inNamespace(DEV).withName(name).get();
  }

  private static void assertRefused(Object resource, String reason, String says) {
    for (String type : List.of("Invalid", "Ready")) {
      assertThat(condition(resource, type))
          .as("%s of %s", type, resource)
          .get()
          .satisfies(
              c -> {
                assertThat(c.getStatus()).isEqualTo(type.equals("Invalid") ? "True" : "False");
                assertThat(c.getReason()).isEqualTo(reason);
                assertThat(c.getMessage()).contains(says);
              });
    }
  }

  private static Optional<Condition> condition(Object resource, String type) {
    List<Condition> conditions =
        resource instanceof LeaderGroup g && g.getStatus() != null
            ? g.getStatus().getConditions()
            : resource instanceof RedisLock l && l.getStatus() != null
                ? l.getStatus().getConditions()
                : null;
    return conditions == null
        ? Optional.empty()
        : conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  private List<Event> events(String name) {
    return cluster.client.v1().events().inAnyNamespace().list().getItems().stream()
        .filter(e -> name.equals(e.getInvolvedObject().getName()))
        .toList();
  }

  private List<String> eventMessages(String name, String reason) {
    return events(name).stream()
        .filter(e -> reason.equals(e.getReason()))
        .map(Event::getMessage)
        .toList();
  }

  private String redis(String... command) {
    return cluster.redis.command(command);
  }
}
