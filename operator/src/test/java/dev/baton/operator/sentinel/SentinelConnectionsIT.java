package dev.baton.operator.sentinel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.baton.client.ElectionKeys;
import dev.baton.operator.lease.RedisConnections;
import dev.baton.operator.lease.RedisLeaseStore;
import dev.baton.operator.lease.RedisSettings;
import dev.baton.operator.lease.RedisUnavailableException;
import dev.baton.operator.testing.CapturedOutput;
import dev.baton.testkit.LocalSentinel;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Connecting through Sentinel with every combination of right and wrong credentials: the right ones
 * work, with or without a sentinel password; each wrong one fails with a message that says which,
 * and no password appears in any message or log line.
 */
class SentinelConnectionsIT {

  private static final String DATA_PASSWORD = "Data-Pw-c7e21";
  private static final String SENTINEL_PASSWORD = "Sentinel-Pw-4f0b9";
  private static final String WRONG = "Wrong-Pw-8a3d6";

  @Test
  void sentinelsWithTheirOwnPasswordAreReachedOnlyWithIt() {
    try (CapturedOutput output = new CapturedOutput();
        LocalSentinel redis = LocalSentinel.start(DATA_PASSWORD, SENTINEL_PASSWORD);
        RedisConnections connections = connections()) {
      RedisSettings right =
          new RedisSettings(redis.url(), null, DATA_PASSWORD)
              .withSentinelCredentials(null, SENTINEL_PASSWORD);
      assertThat(observe(connections, right)).isNull();

      assertThat(
              failure(
                  connections,
                  new RedisSettings(redis.url(), null, DATA_PASSWORD)
                      .withSentinelCredentials(null, WRONG)))
          .contains("cannot connect to Redis " + redis.url())
          .contains("no sentinel could be used: check the sentinel addresses and credentials");
      assertThat(failure(connections, new RedisSettings(redis.url(), null, DATA_PASSWORD)))
          .contains("cannot connect to Redis " + redis.url())
          .contains("no sentinel could be used");
      assertThat(
              failure(
                  connections,
                  new RedisSettings(redis.url(), null, WRONG)
                      .withSentinelCredentials(null, SENTINEL_PASSWORD)))
          .contains("wrong username or password");
      String otherMaster = redis.url().replace("/" + LocalSentinel.MASTER_NAME, "/no-such-master");
      assertThat(
              failure(
                  connections,
                  new RedisSettings(otherMaster, null, DATA_PASSWORD)
                      .withSentinelCredentials(null, SENTINEL_PASSWORD)))
          .contains("cannot connect to Redis " + otherMaster)
          .contains("no-such-master");

      assertThat(output.text())
          .as("a password in the logs")
          .doesNotContain(DATA_PASSWORD)
          .doesNotContain(SENTINEL_PASSWORD)
          .doesNotContain(WRONG);
    }
  }

  @Test
  void sentinelsWithoutAPasswordWorkBesideADataPassword() {
    try (LocalSentinel redis = LocalSentinel.start(DATA_PASSWORD, null);
        RedisConnections connections = connections()) {
      assertThat(observe(connections, new RedisSettings(redis.url(), null, DATA_PASSWORD)))
          .isNull();
    }
  }

  private static RedisConnections connections() {
    return new RedisConnections(RedisLeaseStore.ScriptTimer.NONE, Duration.ofMillis(500));
  }

  private static String observe(RedisConnections connections, RedisSettings settings) {
    return connections.leaseStore(settings).observe(new ElectionKeys("shop/payments")).holder();
  }

  /** The message of a failed connection, checked to hold no password. */
  private static String failure(RedisConnections connections, RedisSettings settings) {
    Throwable thrown = catchThrowable(() -> observe(connections, settings));
    assertThat(thrown)
        .as("connecting with %s", settings)
        .isInstanceOf(RedisUnavailableException.class);
    String message = thrown.getMessage();
    Stream.of(DATA_PASSWORD, SENTINEL_PASSWORD, WRONG)
        .forEach(p -> assertThat(message).doesNotContain(p));
    return message;
  }
}
