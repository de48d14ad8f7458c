package dev.baton.operator.security;

import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisConnectionRef;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.client.BatonLock;
import dev.baton.client.BatonLocks;
import dev.baton.client.LockLease;
import dev.baton.client.LockOwner;
import dev.baton.operator.config.OperatorConfig;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.CapturedOutput;
import dev.baton.testkit.LocalRedis;
import dev.baton.testkit.RespClient;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * Baton against a Redis that lets it do only what docs/redis-acl.md grants: the documented ACL line
 * is read from that file and applied as written, the default user is disabled, and every election
 * path, and an application's lock, run without a single ACL denial.
 */
class RedisAclIT {

  private static final String ROLE = BatonCluster.ROLE;
  private static final String ADMIN_PASSWORD = "Admin-Pw-0c4e2";
  private static final String BATON_PASSWORD = "Baton-Pw-6d1f8";
  private static final String WRONG_PASSWORD = "Wrong-Pw-2a9b7";
  private static final Path DOC = Path.of("../docs/redis-acl.md");

  /** The documented rule's words after ACL SETUSER, with the placeholder password replaced. */
  static List<String> documentedRule(String user, String password) throws IOException {
    String line =
        Files.readAllLines(DOC).stream()
            .filter(l -> l.startsWith("ACL SETUSER baton "))
            .findFirst()
            .orElseThrow(() -> new AssertionError(DOC + " has no line 'ACL SETUSER baton ...'"));
    List<String> words = new ArrayList<>(Arrays.asList(line.trim().split("\\s+")));
    words.remove(0);
    words.remove(0);
    words.set(0, user);
    words.replaceAll(w -> w.equals(">CHANGE-ME") ? ">" + password : w);
    assertThat(words).as("the documented rule sets a password").contains(">" + password);
    return words;
  }

  /** A Redis whose default user is off; the test itself logs in as an admin user. */
  static LocalRedis lockedDownRedis() {
    return LocalRedis.start(
        "--user",
        "admin",
        "on",
        ">" + ADMIN_PASSWORD,
        "~*",
        "&*",
        "+@all",
        "--user",
        "default",
        "off");
  }

  static RespClient admin(LocalRedis redis) {
    return RespClient.connect(redis.port(), null, "admin", ADMIN_PASSWORD);
  }

  static void setUser(RespClient admin, List<String> rule) {
    List<String> command = new ArrayList<>(List.of("ACL", "SETUSER"));
    command.addAll(rule);
    assertThat(admin.text(command.toArray(String[]::new))).isEqualTo("OK");
  }

  /**
   * The documented rule set as user baton's, and the operator's next start told to log in as it.
   *
   * @return the rule
   */
  private static List<String> operatorAsBaton(
      RespClient admin, LocalRedis redis, BatonCluster cluster) throws IOException {
    List<String> rule = documentedRule("baton", BATON_PASSWORD);
    setUser(admin, rule);
    cluster
        .env(OperatorConfig.REDIS_URL, redis.url())
        .env(OperatorConfig.REDIS_USERNAME, "baton")
        .env(OperatorConfig.REDIS_PASSWORD, BATON_PASSWORD);
    return rule;
  }

  /** The commands a rule allows, as INFO commandstats names them (get, client|setname). */
  static List<String> allowedCommands(List<String> rule) {
    return rule.stream()
        .filter(w -> w.startsWith("+") && !w.startsWith("+@"))
        .map(w -> w.substring(1).toLowerCase())
        .toList();
  }

  @Test
  void theDocumentedAclAllowsEveryCommandThatAnyBatonScriptCalls() throws IOException {
    Pattern call = Pattern.compile("redis\\.p?call\\(\\s*'([A-Za-z]+)'");
    TreeSet<String> called = new TreeSet<>();
    List<Path> scripts = new ArrayList<>();
    for (Path dir :
        List.of(Path.of("src/main/resources/lua"), Path.of("../client/src/main/resources/lua"))) {
      if (Files.isDirectory(dir)) {
        try (Stream<Path> files = Files.list(dir)) {
          files.filter(f -> f.toString().endsWith(".lua")).forEach(scripts::add);
        }
      }
    }
    for (Path script : scripts) {
      Matcher m = call.matcher(Files.readString(script));
      while (m.find()) {
        called.add(m.group(1).toLowerCase());
      }
    }
    assertThat(scripts).as("Lua scripts found").isNotEmpty();
    assertThat(allowedCommands(documentedRule("baton", BATON_PASSWORD)))
        .as("commands called by %s", scripts)
        .containsAll(called);
  }

  @Test
  void batonWorksWithExactlyTheDocumentedAcl() throws Exception {
    try (CapturedOutput output = new CapturedOutput();
        LocalRedis redis = lockedDownRedis();
        RespClient admin = admin(redis);
        BatonCluster cluster = new BatonCluster()) {
      List<String> rule = operatorAsBaton(admin, redis, cluster);
      admin.text("CONFIG", "RESETSTAT");
      admin.text("ACL", "LOG", "RESET");
      String first = cluster.startGroup("payments", 3);

      // Every path of the scripts: take-over on deletion, re-acquisition above the reserved terms
      // after Redis lost its data, renewals, and the release when the group goes away.
      cluster.deletePod(first);
      await()
          .atMost(WAIT)
          .until(
              () ->
                  cluster.leaders(ROLE).size() == 1
                      && !cluster.leaders(ROLE).contains(first)
                      && term(cluster) == 2);
      // Data and script cache gone, as after a restart: Redisson loads its scripts again.
      admin.text("FLUSHALL");
      admin.text("SCRIPT", "FLUSH");
      // Terms 1 and 2 came from the first reservation (up to 100): the next one is above it.
      await().atMost(WAIT).until(() -> term(cluster) == 101);
      // GETRANGE and EXISTS, not GET: the admin's own commands must not count as Baton's below.
      assertThat(admin.text("GETRANGE", "baton:{shop/payments}:term", "0", "-1")).isEqualTo("101");
      await().atMost(WAIT).until(() -> commandStats(admin).contains("pexpire"));

      // A lock taken and released by an application on the same user: tokens reserved, the
      // scripts' notifications published and heard.
      cluster.create(BatonCluster.redisLock("jobs", "10s"));
      RedissonClient app = application(redis);
      try {
        BatonLock lock =
            BatonLocks.singleRedis(app, LockOwner.external("acl-test"))
                .lock(NS + "/jobs", Duration.ofSeconds(10));
        LockLease lease = lock.tryAcquire(WAIT).orElseThrow();
        await().atMost(WAIT).until(() -> "acl-test".equals(holder(cluster)));
        assertThat(lease.release()).isTrue();
        await().atMost(WAIT).until(() -> "".equals(holder(cluster)));
      } finally {
        app.shutdown();
      }
      cluster.client.resources(LeaderGroup.class).inNamespace(NS).withName("payments").delete();
      await()
          .atMost(WAIT)
          .until(
              () -> Long.valueOf(0).equals(admin.call("EXISTS", "baton:{shop/payments}:leader")));

      assertThat(deniedBeyondRedissonsProbe(admin)).as("ACL denials").isEmpty();
      assertThat(commandStats(admin))
          .as(
              "each command the documented ACL allows is one Baton used; it used %s",
              commandStats(admin))
          .containsAll(allowedCommands(rule));
      assertThat(output.text()).doesNotContain(BATON_PASSWORD);
    }
  }

  @Test
  void aMissingPermissionOrAWrongPasswordIsReportedWithoutShowingThePassword() throws Exception {
    try (CapturedOutput output = new CapturedOutput();
        LocalRedis redis = lockedDownRedis();
        RespClient admin = admin(redis);
        BatonCluster cluster = new BatonCluster()) {
      operatorAsBaton(admin, redis, cluster);
      List<String> withoutGet = new ArrayList<>(documentedRule("baton-noget", BATON_PASSWORD));
      withoutGet.remove("+get");
      setUser(admin, withoutGet);
      cluster.createRedisSecret("noget-redis", redis.url(), "baton-noget", BATON_PASSWORD);
      cluster.createRedisSecret("wrong-redis", redis.url(), "baton", WRONG_PASSWORD);
      for (String app : List.of("payments", "noget", "wrong")) {
        cluster.createPod(app + "-0", app);
      }
      cluster.startOperator();
      cluster.create(Sandbox.group("payments", "payments"));
      for (String app : List.of("noget", "wrong")) {
        LeaderGroup g = Sandbox.group(app, app);
        g.getSpec().setRedis(new RedisConnectionRef(app + "-redis"));
        cluster.create(g);
      }

      cluster.awaitLeader("payments", ROLE);
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                cluster
                    .assertCondition("noget", "RedisAvailable")
                    .hasStatus("False")
                    .hasMessageContaining(
                        "lacks a permission", "can't run this command", "docs/redis-acl.md");
                cluster
                    .assertCondition("wrong", "RedisAvailable")
                    .hasStatus("False")
                    .hasMessageContaining("wrong username or password");
              });
      assertThat(cluster.leaders(ROLE)).containsExactly("payments-0");

      StringBuilder everything = new StringBuilder(output.text());
      for (String g : List.of("payments", "noget", "wrong")) {
        everything.append(Serialization.asYaml(cluster.get(g)));
      }
      everything.append(Serialization.asYaml(cluster.client.v1().events().inNamespace(NS).list()));
      assertThat(everything.toString())
          .as("a password in logs, status or Events")
          .doesNotContain(BATON_PASSWORD)
          .doesNotContain(WRONG_PASSWORD)
          .doesNotContain(ADMIN_PASSWORD);
    }
  }

  /**
   * ACL LOG entries, less the one that Redisson's cluster probe causes at every connect: an EVAL
   * that reads keys test1 and test2, whose failure it ignores (see docs/redis-acl.md).
   */
  static List<Object> deniedBeyondRedissonsProbe(RespClient admin) {
    List<Object> out = new ArrayList<>();
    for (Object entry : (List<?>) admin.call("ACL", "LOG")) {
      List<?> fields = (List<?>) entry;
      String object = String.valueOf(fields.get(fields.indexOf("object") + 1));
      String reason = String.valueOf(fields.get(fields.indexOf("reason") + 1));
      if (!(reason.equals("key") && (object.equals("test1") || object.equals("test2")))) {
        out.add(entry);
      }
    }
    return out;
  }

  /** An application's Redisson client, logged in as the documented user. */
  private static RedissonClient application(LocalRedis redis) {
    Config config = new Config();
    config.setUsername("baton");
    config.setPassword(BATON_PASSWORD);
    config
        .useSingleServer()
        .setAddress(redis.url())
        .setConnectionMinimumIdleSize(1)
        .setSubscriptionConnectionMinimumIdleSize(0);
    return Redisson.create(config);
  }

  private static String holder(BatonCluster cluster) {
    RedisLock l = cluster.lock("jobs");
    return l == null || l.getStatus() == null ? null : l.getStatus().getHolder();
  }

  private static long term(BatonCluster cluster) {
    Long term = cluster.status("payments").getTerm();
    return term == null ? 0 : term;
  }

  /** The commands run since the last CONFIG RESETSTAT, lower case, subcommands as a|b. */
  private static TreeSet<String> commandStats(RespClient admin) {
    TreeSet<String> out = new TreeSet<>();
    for (String line : admin.text("INFO", "commandstats").split("\r?\n")) {
      if (line.startsWith("cmdstat_")) {
        out.add(line.substring("cmdstat_".length(), line.indexOf(':')));
      }
    }
    return out;
  }
}
