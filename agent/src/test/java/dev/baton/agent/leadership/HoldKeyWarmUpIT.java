package dev.baton.agent.leadership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.agent.testing.AgentSandbox;
import dev.baton.client.LuaScript;
import dev.baton.testkit.RespClient;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An agent with Redis makes its first gate-key script call at start, not in its first failover, and
 * that call changes nothing in Redis.
 */
class HoldKeyWarmUpIT {

  @Test
  void anAgentThatNeverLedHasRunTheRenewScriptAndWroteNoKey() throws Exception {
    // No operator and no group: nobody leads, so no agent has a reason to call a script.
    try (AgentSandbox sandbox = new AgentSandbox().pods(1);
        RespClient redis = RespClient.connect(sandbox.cluster.redis.port())) {
      String renew = sha1(LuaScript.load("hold-renew").source());
      assertThat(redis.call("SCRIPT", "EXISTS", renew)).isEqualTo(List.of(0L));

      sandbox.startAgent("worker-0", Duration.ofSeconds(2), true);

      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> List.of(1L).equals(redis.call("SCRIPT", "EXISTS", renew)));
      assertThat(redis.call("EXISTS", HoldKey.WARM_UP_KEY)).isEqualTo(0L);
      assertThat(redis.call("KEYS", "*")).isEqualTo(List.of());
      assertThat(sandbox.agent("worker-0").leadership().view().leader()).isFalse();
    }
  }

  private static String sha1(String source) throws NoSuchAlgorithmException {
    return HexFormat.of()
        .formatHex(
            MessageDigest.getInstance("SHA-1").digest(source.getBytes(StandardCharsets.UTF_8)));
  }
}
