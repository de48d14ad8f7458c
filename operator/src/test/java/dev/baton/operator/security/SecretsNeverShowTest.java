package dev.baton.operator.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.baton.client.ElectionKeys;
import dev.baton.operator.config.OperatorConfig;
import dev.baton.operator.lease.RedisConnections;
import dev.baton.operator.lease.RedisLeaseStore;
import dev.baton.operator.lease.RedisSettings;
import dev.baton.operator.lease.RedisUnavailableException;
import dev.baton.testkit.TestCertificates;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The new connection settings (sentinel credentials, CA certificates) keep every password out of
 * toString, validation messages, configuration errors and connection failures.
 */
class SecretsNeverShowTest {

  private static final String PASSWORD = "Pw-Data-19ae0";
  private static final String SENTINEL_PASSWORD = "Pw-Sentinel-5c7d2";
  private static final String URL_PASSWORD = "Pw-InUrl-b3e64";

  @Test
  void settingsShowUsersButNeverPasswords() {
    RedisSettings s =
        new RedisSettings(
                "redis-sentinel://admin:" + URL_PASSWORD + "@s1:26379,s2:26379/mymaster",
                "baton",
                PASSWORD)
            .withSentinelCredentials("watcher", SENTINEL_PASSWORD);
    assertThat(s.toString())
        .contains("user baton")
        .contains("sentinel user watcher")
        .doesNotContain(PASSWORD)
        .doesNotContain(SENTINEL_PASSWORD)
        .doesNotContain(URL_PASSWORD);
    assertThat(s.describe()).isEqualTo("redis-sentinel://s1:26379,s2:26379/mymaster");
    assertThat(s.sentinelAddresses()).noneMatch(a -> a.contains(URL_PASSWORD));

    RedisSettings cluster =
        new RedisSettings(
            "rediss-cluster://admin:" + URL_PASSWORD + "@n1:6379,n2:6379", "baton", PASSWORD);
    assertThat(cluster.toString()).doesNotContain(URL_PASSWORD).doesNotContain(PASSWORD);
    assertThat(cluster.clusterAddresses()).containsExactly("rediss://n1:6379", "rediss://n2:6379");
    assertThat(cluster.tls()).isTrue();

    RedisSettings tls =
        new RedisSettings("rediss://redis:6380", null, PASSWORD)
            .withCaCertificate(TestCertificates.newCa("ca").caPem());
    assertThat(tls.toString()).isEqualTo("RedisSettings{rediss://redis:6380, own CA}");
  }

  @Test
  void refusedSettingsNeverEchoAPassword() {
    String url = "redis://:" + URL_PASSWORD + "@redis:6379";
    for (Runnable bad :
        new Runnable[] {
          () ->
              new RedisSettings(url, null, PASSWORD)
                  .withCaCertificate("-----BEGIN CERTIFICATE-----"),
          () ->
              new RedisSettings(url, null, PASSWORD)
                  .withSentinelCredentials(null, SENTINEL_PASSWORD),
          () ->
              new RedisSettings("rediss://:" + URL_PASSWORD + "@redis:6379", null, PASSWORD)
                  .withCaCertificate(
                      "-----BEGIN CERTIFICATE-----\n" + PASSWORD + "\n-----END CERTIFICATE-----"),
          () -> new RedisSettings("redis-sentinel://:" + URL_PASSWORD + "@s1:26379", null, PASSWORD)
        }) {
      assertThat(catchThrowable(bad::run))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageNotContaining(PASSWORD)
          .hasMessageNotContaining(URL_PASSWORD)
          .hasMessageNotContaining(SENTINEL_PASSWORD);
    }
  }

  @Test
  void configurationErrorsNameTheVariableNotTheSecret(@org.junit.jupiter.api.io.TempDir Path dir)
      throws Exception {
    Throwable missingCa =
        catchThrowable(
            () ->
                OperatorConfig.from(
                    Map.of(
                        OperatorConfig.REDIS_URL,
                        "rediss://:" + URL_PASSWORD + "@redis:6380",
                        OperatorConfig.REDIS_PASSWORD,
                        PASSWORD,
                        OperatorConfig.REDIS_CA_FILE,
                        dir.resolve("absent.crt").toString()),
                    false));
    assertThat(missingCa)
        .hasMessageContaining(OperatorConfig.REDIS_CA_FILE)
        .hasMessageContaining("cannot read the file")
        .hasMessageNotContaining(PASSWORD)
        .hasMessageNotContaining(URL_PASSWORD);

    Path notPem = Files.writeString(dir.resolve("ca.crt"), "secret-looking " + PASSWORD);
    Throwable badCa =
        catchThrowable(
            () ->
                OperatorConfig.from(
                    Map.of(
                        OperatorConfig.REDIS_URL,
                        "rediss://redis:6380",
                        OperatorConfig.REDIS_CA_FILE,
                        notPem.toString()),
                    false));
    assertThat(badCa)
        .hasMessageContaining(OperatorConfig.REDIS_CA_FILE)
        .hasMessageContaining("not in PEM format")
        .hasMessageNotContaining(PASSWORD);

    OperatorConfig sentinel =
        OperatorConfig.from(
            Map.of(
                OperatorConfig.REDIS_URL, "redis-sentinel://s1:26379/mymaster",
                OperatorConfig.REDIS_SENTINEL_USERNAME, "watcher",
                OperatorConfig.REDIS_SENTINEL_PASSWORD, SENTINEL_PASSWORD),
            false);
    assertThat(sentinel.redis().sentinelPassword()).isEqualTo(SENTINEL_PASSWORD);
    assertThat(sentinel.toString()).doesNotContain(SENTINEL_PASSWORD);
  }

  @Test
  void aFailedConnectionSaysWhyWithoutThePasswordInItsUrl() {
    try (RedisConnections connections =
        new RedisConnections(RedisLeaseStore.ScriptTimer.NONE, Duration.ofMillis(300))) {
      RedisSettings closedPort =
          new RedisSettings("redis://baton:" + URL_PASSWORD + "@127.0.0.1:1", null, PASSWORD);
      Throwable thrown =
          catchThrowable(
              () -> connections.leaseStore(closedPort).observe(new ElectionKeys("shop/payments")));
      assertThat(thrown)
          .isInstanceOf(RedisUnavailableException.class)
          .hasMessage("cannot connect to Redis redis://127.0.0.1:1: connection refused");
      // Within the reconnect backoff the same reason is given again, not a vaguer one.
      assertThat(catchThrowable(() -> connections.leaseStore(closedPort)))
          .hasMessage("cannot connect to Redis redis://127.0.0.1:1: connection refused");
    }
  }
}
