package dev.baton.agent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.baton.client.RedisLogin;
import dev.baton.testkit.LocalSentinel;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * Sentinels with a password of their own, beside data nodes with another: the agent's client
 * reaches the master with the sentinels' credentials ({@code BATON_REDIS_SENTINEL_*}), and without
 * them it is refused, the password in no message.
 */
class SentinelCredentialsIT {

  private static final String DATA_PASSWORD = "Agent-Data-Pw-31c9a";
  private static final String SENTINEL_PASSWORD = "Agent-Sentinel-Pw-e04d2";

  @Test
  void theSentinelsOwnPasswordReachesTheMasterAndNothingElseDoes() {
    try (LocalSentinel redis = LocalSentinel.start(DATA_PASSWORD, SENTINEL_PASSWORD)) {
      RedissonClient right =
          RedisConnection.open(
              redis.url(), new RedisLogin(null, DATA_PASSWORD, null, SENTINEL_PASSWORD, null));
      try {
        right.getBucket("agent-sentinel", StringCodec.INSTANCE).set("reached");
      } finally {
        right.shutdown();
      }
      assertThat(redis.get(redis.masterPort(), "agent-sentinel")).isEqualTo("reached");

      RedissonClient dataOnly = RedisConnection.open(redis.url(), null, DATA_PASSWORD);
      try {
        Throwable refused =
            catchThrowable(
                () -> dataOnly.getBucket("agent-sentinel", StringCodec.INSTANCE).set("not"));
        assertThat(refused).as("the data password offered to the sentinels").isNotNull();
        assertThat(String.valueOf(refused))
            .doesNotContain(DATA_PASSWORD)
            .doesNotContain(SENTINEL_PASSWORD);
      } finally {
        dataOnly.shutdown();
      }
      assertThat(redis.get(redis.masterPort(), "agent-sentinel")).isEqualTo("reached");
    }
  }
}
