package dev.baton.agent.redisusers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.agent.BatonAgent;
import dev.baton.agent.config.AgentConfig;
import dev.baton.agent.locks.LockService;
import dev.baton.agent.redis.RedisConnection;
import dev.baton.agent.testing.AgentSandbox;
import dev.baton.agent.testing.HoldKeys;
import dev.baton.agent.threads.AgentThreads;
import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.client.BatonNames;
import dev.baton.client.KubernetesApi;
import dev.baton.client.LockKeys;
import dev.baton.testkit.RespClient;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * Per-group Redis users on a real redis-server with ACLs and the real operator on the mock API
 * server: each group and lock gets its user and Secret; an agent logged in as its group's user does
 * all its work (ACL LOG records no refusal) and gets NOPERM on another group's keys; a lock's user
 * takes, renews and releases its lock; a rotation keeps the previous password for one more
 * rotation; a deleted group's user is gone; an operator without ACL rights says so in an Event. No
 * password reaches an Event, a status or the log.
 */
class PerGroupRedisUsersIT {

  private static final String OTHER = "others";

  @Test
  void eachGroupReachesOnlyItsOwnKeys() throws Exception {
    ByteArrayOutputStream log = new ByteArrayOutputStream();
    PrintStream err = System.err;
    System.setErr(new PrintStream(new Tee(err, log), true, StandardCharsets.UTF_8));
    List<String> passwords = new ArrayList<>();
    List<BatonAgent> agents = new ArrayList<>();
    RedissonClient lockRedis = null;
    RedissonClient groupRedis = null;
    try (AgentSandbox s = new AgentSandbox()) {
      s.cluster.env("BATON_REDIS_ACL_PER_GROUP", "true");
      s.pods(2).group().startOperator();
      s.cluster.createPod("other-0", "other");
      s.cluster.create(Sandbox.group(OTHER, "other"));
      s.createLock("migration");

      Secret mine = awaitSecret(s, BatonNames.redisUserSecret(AgentSandbox.GROUP));
      Secret theirs = awaitSecret(s, BatonNames.redisUserSecret(OTHER));
      Secret lock = awaitSecret(s, BatonNames.redisLockUserSecret("migration"));
      assertThat(value(mine, "username")).isEqualTo("baton-group:shop/workers");
      assertThat(value(mine, "url")).isEqualTo(s.cluster.redis.url());
      assertThat(mine.getMetadata().getOwnerReferences())
          .singleElement()
          .satisfies(
              r ->
                  assertThat(r.getUid())
                      .isEqualTo(s.cluster.get("workers").getMetadata().getUid()));
      passwords.add(value(mine, "password"));
      passwords.add(value(theirs, "password"));
      passwords.add(value(lock, "password"));

      // The group's agents, logged in as the group's user, elect and open the leader's gate.
      for (String pod : List.of("worker-0", "worker-1")) {
        Map<String, String> env = s.env(pod, Duration.ofSeconds(2), true);
        env.put(AgentConfig.REDIS_USERNAME, value(mine, "username"));
        env.put(AgentConfig.REDIS_PASSWORD, value(mine, "password"));
        BatonAgent a =
            new BatonAgent(
                AgentConfig.fromEnvironment(env),
                KubernetesApi.withoutCredentials(s.api()),
                List.of(s.recorder.forPod(pod)),
                new AgentThreads());
        agents.add(a);
      }
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(HoldKeys.state(s.cluster.redis))
                      .as(() -> "refused: " + refusals(s))
                      .isEqualTo('H'));

      // A lock's user takes, renews and releases its lock through the agent's lock code.
      lockRedis =
          RedisConnection.open(
              s.cluster.redis.url(), value(lock, "username"), value(lock, "password"));
      String uid = s.pod("worker-0").getMetadata().getUid();
      LockService locks =
          new LockService(lockRedis, Sandbox.NS, "worker-0", () -> Optional.of(uid));
      assertThat(locks.acquire("migration", null, Duration.ofSeconds(5), Duration.ZERO).status())
          .isEqualTo(200);
      assertThat(locks.renew("migration", null, Optional.empty()).status()).isEqualTo(200);
      assertThat(locks.release("migration", null).status()).isEqualTo(200);
      // So does the agent of a group of the namespace, once its user covers the namespace's locks.
      // (Any change of the group wakes its reconcile; else the minute's resync would.)
      int[] poke = {0};
      await()
          .atMost(Duration.ofSeconds(20))
          .pollInterval(Duration.ofSeconds(1))
          .until(
              () -> {
                s.cluster.annotate(AgentSandbox.GROUP, "example.com/poke", "" + poke[0]++);
                return acl(s, "baton-group:shop/workers")
                    .contains(new LockKeys("shop/migration").lock());
              });
      assertThat(
              new LockService(
                      groupRedis =
                          RedisConnection.open(
                              s.cluster.redis.url(),
                              value(mine, "username"),
                              value(mine, "password")),
                      Sandbox.NS,
                      "worker-1",
                      () -> Optional.of(s.pod("worker-1").getMetadata().getUid()))
                  .acquire("migration", null, Duration.ofSeconds(5), Duration.ZERO)
                  .status())
          .isEqualTo(200);

      // Neither the group's agents nor the lock's holder were refused anything.
      assertThat(refusals(s)).isEmpty();

      // The other group's user reaches none of the group's or the lock's keys.
      try (RespClient other =
          RespClient.connect(
              s.cluster.redis.port(), null, value(theirs, "username"), value(theirs, "password"))) {
        for (String key :
            List.of(
                HoldKeys.KEY,
                HoldKeys.KEY + ":term",
                HoldKeys.KEY + ":writes",
                "baton:{shop/workers}:leader",
                "baton:{shop/workers}:term")) {
          assertThat(other.call("GET", key)).asString().startsWith("Error[message=NOPERM");
          assertThat(other.call("EVAL", "return redis.call('GET', KEYS[1])", "1", key))
              .asString()
              .startsWith("Error[message=NOPERM");
        }
        assertThat(other.call("KEYS", "*")).asString().startsWith("Error[message=NOPERM");
        assertThat(other.call("PUBLISH", "baton:other", "x"))
            .asString()
            .startsWith("Error[message=NOPERM");
        assertThat(other.call("GET", "baton:{gate:shop/others}")).isNull();
      }

      // A rotation: the new password and the previous one log in; the one before is refused.
      String first = value(mine, "password");
      String relaySecret = value(mine, "relay-secret");
      assertThat(relaySecret).as("the group's relay secret").hasSizeGreaterThanOrEqualTo(32);
      assertThat(relaySecret).isNotEqualTo(value(theirs, "relay-secret"));
      passwords.add(relaySecret);
      annotate(s, "1");
      Secret rotated = awaitPasswordOtherThan(s, first);
      String second = value(rotated, "password");
      passwords.add(second);
      assertThat(value(rotated, "relay-secret"))
          .as("kept across a rotation: agents started before and after take each other's relays")
          .isEqualTo(relaySecret);
      // The Secret is written before Redis is told: the new password logs in once both are.
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> assertThat(auth(s, "baton-group:shop/workers", second)).isEqualTo("OK"));
      assertThat(auth(s, "baton-group:shop/workers", first)).isEqualTo("OK");
      annotate(s, "2");
      String third = value(awaitPasswordOtherThan(s, second), "password");
      passwords.add(third);
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> assertThat(auth(s, "baton-group:shop/workers", first)).startsWith("WRONGPASS"));
      assertThat(auth(s, "baton-group:shop/workers", second)).isEqualTo("OK");
      assertThat(auth(s, "baton-group:shop/workers", third)).isEqualTo("OK");

      // A deleted group's user is gone from Redis.
      s.cluster
          .client
          .resources(LeaderGroup.class)
          .inNamespace(Sandbox.NS)
          .withName(OTHER)
          .delete();
      await()
          .atMost(Duration.ofSeconds(20))
          .untilAsserted(
              () ->
                  assertThat(acl(s, "baton-group:shop/others"))
                      .as(() -> "group: " + Serialization.asYaml(s.cluster.get(OTHER)))
                      .matches("[$*]-1"));

      // An operator whose own user may not set users says so in an Event, naming no password.
      s.cluster.redis.command("ACL", "SETUSER", "default", "-acl|setuser");
      LeaderGroup stray = Sandbox.group("stray", "other");
      stray.getSpec().setElectionKey("elsewhere/orders");
      s.cluster.create(stray);
      s.cluster.create(Sandbox.group("late", "other"));
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> events(s).contains("RedisUserRefused") && events(s).contains("NOPERM"));
      passwords.add(value(awaitSecret(s, BatonNames.redisUserSecret("late")), "password"));
      // A key the operator refused (another namespace's) never gets a user: none is made before
      // the operator accepts the key.
      assertThat(s.cluster.get("stray").getStatus().getConditions())
          .anySatisfy(c -> assertThat(c.getType() + c.getStatus()).isEqualTo("InvalidTrue"));
      assertThat(
              s.cluster
                  .client
                  .secrets()
                  .inNamespace(Sandbox.NS)
                  .withName(BatonNames.redisUserSecret("stray"))
                  .get())
          .isNull();
      assertThat(acl(s, "baton-group:shop/stray")).matches("[$*]-1");

      String shown =
          events(s)
              + Serialization.asYaml(
                  s.cluster.client.resources(LeaderGroup.class).inNamespace(Sandbox.NS).list())
              + log.toString(StandardCharsets.UTF_8);
      for (String p : passwords) {
        assertThat(shown).doesNotContain(p);
      }
    } finally {
      agents.forEach(BatonAgent::close);
      if (lockRedis != null) {
        lockRedis.shutdown();
      }
      if (groupRedis != null) {
        groupRedis.shutdown();
      }
      System.setErr(err);
    }
  }

  /**
   * What Redis refused Baton's users, as "reason object" pairs. Redisson's own probe of a key named
   * test1 when it first connects is refused and harmless: it is left out.
   */
  private static List<String> refusals(AgentSandbox s) {
    List<String> out = new ArrayList<>();
    try (RespClient c = RespClient.connect(s.cluster.redis.port())) {
      for (Object entry : (List<?>) c.call("ACL", "LOG", "100")) {
        List<?> fields = (List<?>) entry;
        Map<String, Object> f = new java.util.HashMap<>();
        for (int i = 0; i + 1 < fields.size(); i += 2) {
          f.put(String.valueOf(fields.get(i)), fields.get(i + 1));
        }
        if (String.valueOf(f.get("username")).startsWith("baton-")
            && !"test1".equals(f.get("object"))) {
          out.add(f.get("reason") + " " + f.get("object"));
        }
      }
    }
    return out;
  }

  private static Secret awaitSecret(AgentSandbox s, String name) {
    return await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () -> s.cluster.client.secrets().inNamespace(Sandbox.NS).withName(name).get(),
            x -> x != null);
  }

  private static Secret awaitPasswordOtherThan(AgentSandbox s, String old) {
    return await()
        .atMost(Duration.ofSeconds(20))
        .until(
            () ->
                s.cluster
                    .client
                    .secrets()
                    .inNamespace(Sandbox.NS)
                    .withName(BatonNames.redisUserSecret(AgentSandbox.GROUP))
                    .get(),
            x -> !old.equals(value(x, "password")));
  }

  private static void annotate(AgentSandbox s, String value) {
    s.cluster.annotate(AgentSandbox.GROUP, BatonNames.ROTATE_REDIS_PASSWORD_ANNOTATION, value);
  }

  private static String auth(AgentSandbox s, String user, String password) {
    try (RespClient c = RespClient.connect(s.cluster.redis.port())) {
      Object r = c.call("AUTH", user, password);
      return r instanceof RespClient.Error e ? e.message() : String.valueOf(r);
    }
  }

  private static String acl(AgentSandbox s, String user) {
    return s.cluster.redis.command("ACL", "GETUSER", user);
  }

  private static String events(AgentSandbox s) {
    return Serialization.asYaml(s.cluster.client.v1().events().inNamespace(Sandbox.NS).list());
  }

  private static String value(Secret secret, String key) {
    return new String(
        Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
  }

  /** Writes to both streams: the console keeps its log, the test reads it. */
  private static final class Tee extends OutputStream {
    private final OutputStream a;
    private final OutputStream b;

    Tee(OutputStream a, OutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public synchronized void write(int c) throws java.io.IOException {
      a.write(c);
      b.write(c);
    }

    @Override
    public synchronized void write(byte[] buf, int off, int len) throws java.io.IOException {
      a.write(buf, off, len);
      b.write(buf, off, len);
    }
  }
}
