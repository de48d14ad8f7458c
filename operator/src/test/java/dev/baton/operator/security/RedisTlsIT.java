package dev.baton.operator.security;

import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisConnectionRef;
import dev.baton.client.BatonNames;
import dev.baton.operator.config.OperatorConfig;
import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.CapturedOutput;
import dev.baton.testkit.RedisProcess;
import dev.baton.testkit.RespClient;
import dev.baton.testkit.Sandbox;
import dev.baton.testkit.TestCertificates;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Baton over TLS: a real redis-server that listens on a TLS port only, with a certificate from a CA
 * made by the test. The operator trusts that CA through BATON_REDIS_CA_FILE, a group through its
 * Secret's ca.crt; a group that does not trust it is told so and labels nothing.
 */
class RedisTlsIT {

  private static final String ROLE = BatonCluster.ROLE;
  private static final String PASSWORD = "Tls-Pw-71c3e";

  /**
   * With a Redis user per group, the group's Secret for its agents carries the CA the operator
   * trusts its Redis through, and the group elects over TLS as its own user.
   */
  @Test
  void aGroupsOwnUserSecretCarriesTheCa() {
    TestCertificates ca = TestCertificates.newCa("baton-test-ca");
    Path dir = RedisProcess.tempDir("baton-tls-users");
    try (RedisProcess redis = RedisProcess.startTls(ca, dir, PASSWORD);
        BatonCluster cluster = new BatonCluster()) {
      cluster
          .env(OperatorConfig.REDIS_URL, "rediss://127.0.0.1:" + redis.port())
          .env(OperatorConfig.REDIS_PASSWORD, PASSWORD)
          .env(OperatorConfig.REDIS_CA_FILE, dir.resolve("ca.crt").toString())
          .env(OperatorConfig.REDIS_ACL_PER_GROUP, "true");
      cluster.createPods("payments", 2);
      cluster.startOperator();
      cluster.create(Sandbox.group("payments", "payments"));

      cluster.awaitLeader("payments", ROLE);
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                Secret secret =
                    cluster
                        .client
                        .secrets()
                        .inNamespace(NS)
                        .withName(BatonNames.redisUserSecret("payments"))
                        .get();
                assertThat(secret).as("the group's user Secret").isNotNull();
                assertThat(secret.getData())
                    .containsKeys("url", "username", "password", RedisSecrets.CA_CERTIFICATE);
                assertThat(
                        new String(
                            Base64.getDecoder()
                                .decode(secret.getData().get(RedisSecrets.CA_CERTIFICATE)),
                            StandardCharsets.US_ASCII))
                    .isEqualToIgnoringWhitespace(ca.caPem());
              });
      try (RespClient c = RespClient.connect(redis.port(), ca.trustingContext(), null, PASSWORD)) {
        assertThat(c.text("ACL", "LIST")).contains("baton-group:shop/payments");
      }
    }
  }

  @Test
  void electsOverTlsTrustingTheCaFromAFileOrASecretAndRefusesAnUntrustedServer() throws Exception {
    TestCertificates ca = TestCertificates.newCa("baton-test-ca");
    TestCertificates otherCa = TestCertificates.newCa("some-other-ca");
    Path dir = RedisProcess.tempDir("baton-tls");
    try (CapturedOutput output = new CapturedOutput();
        RedisProcess redis = RedisProcess.startTls(ca, dir, PASSWORD);
        BatonCluster cluster = new BatonCluster()) {
      String url = "rediss://127.0.0.1:" + redis.port();
      cluster
          .env(OperatorConfig.REDIS_URL, url)
          .env(OperatorConfig.REDIS_PASSWORD, PASSWORD)
          .env(OperatorConfig.REDIS_CA_FILE, dir.resolve("ca.crt").toString());
      // orders: by host name, trusting the CA given in its Secret.
      cluster.createRedisSecret(
          "orders-redis",
          Map.of(
              "url",
              "rediss://localhost:" + redis.port(),
              "password",
              PASSWORD,
              RedisSecrets.CA_CERTIFICATE,
              ca.caPem()));
      // untrusted: the JVM's default trust store, which has never heard of the test CA.
      cluster.createRedisSecret("untrusted-redis", Map.of("url", url, "password", PASSWORD));
      // wrongca: trusts a CA that did not sign the server's certificate.
      cluster.createRedisSecret(
          "wrongca-redis",
          Map.of("url", url, "password", PASSWORD, RedisSecrets.CA_CERTIFICATE, otherCa.caPem()));
      List<String> apps = List.of("payments", "orders", "untrusted", "wrongca");
      for (String app : apps) {
        cluster.createPod(app + "-0", app);
        cluster.createPod(app + "-1", app);
      }
      cluster.startOperator();
      for (String app : apps) {
        LeaderGroup g = Sandbox.group(app, app);
        if (!app.equals("payments")) {
          g.getSpec().setRedis(new RedisConnectionRef(app + "-redis"));
          g.getSpec().setRoleLabel("baton.dev/" + app + "-role");
        }
        cluster.create(g);
      }

      cluster.awaitLeader("payments", ROLE);
      cluster.awaitLeader("orders", "baton.dev/orders-role");
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                for (String g : List.of("untrusted", "wrongca")) {
                  assertThat(cluster.condition(g, "RedisAvailable"))
                      .get()
                      .as(cluster.describe(g, ROLE))
                      .satisfies(
                          c -> {
                            assertThat(c.getStatus()).isEqualTo("False");
                            assertThat(c.getMessage())
                                .contains("cannot connect to Redis " + url)
                                .contains(
                                    "TLS handshake failed: the server certificate is not trusted");
                          });
                }
              });
      assertThat(cluster.roles("baton.dev/untrusted-role")).isEmpty();
      assertThat(cluster.roles("baton.dev/wrongca-role")).isEmpty();
      try (RespClient c = RespClient.connect(redis.port(), ca.trustingContext(), null, PASSWORD)) {
        assertThat(c.text("INFO", "stats"))
            .as("connections came in over TLS")
            .doesNotContain("total_connections_received:0");
        assertThat(c.call("EXISTS", "baton:{shop/payments}:leader")).isEqualTo(1L);
        assertThat(c.call("EXISTS", "baton:{shop/orders}:leader")).isEqualTo(1L);
      }

      StringBuilder everything = new StringBuilder(output.text());
      for (String g : apps) {
        everything.append(Serialization.asYaml(cluster.get(g)));
      }
      everything.append(Serialization.asYaml(cluster.client.v1().events().inNamespace(NS).list()));
      assertThat(everything.toString())
          .as("a password in logs, status or Events")
          .doesNotContain(PASSWORD);
    }
  }
}
