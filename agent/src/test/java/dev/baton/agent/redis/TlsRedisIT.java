package dev.baton.agent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.baton.client.CaCertificates;
import dev.baton.client.RedisLogin;
import dev.baton.testkit.RedisProcess;
import dev.baton.testkit.TestCertificates;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * The agent against a real redis-server that speaks TLS only, with a certificate from a private CA:
 * trusting that CA ({@code BATON_REDIS_CA}), both its client and the hold scripts' own socket reach
 * it; trusting the JVM's CAs alone, or another CA, neither does.
 */
class TlsRedisIT {

  private static final String PASSWORD = "Agent-Tls-Pw-9d27c";
  private static final Duration SECOND = Duration.ofSeconds(1);

  @Test
  void theClientAndTheScriptSocketTrustTheGivenCaAndNoOther() throws Exception {
    TestCertificates ca = TestCertificates.newCa("baton-agent-test-ca");
    TestCertificates other = TestCertificates.newCa("baton-agent-other-ca");
    Path dir = RedisProcess.tempDir("baton-agent-tls");
    try (RedisProcess redis = RedisProcess.startTls(ca, dir, PASSWORD)) {
      String url = "rediss://localhost:" + redis.port();
      RedisLogin trusting = login(ca);

      RedissonClient client = RedisConnection.open(url, trusting);
      try {
        client.getBucket("agent-tls", StringCodec.INSTANCE).set("over TLS");
        assertThat(client.getBucket("agent-tls", StringCodec.INSTANCE).get()).isEqualTo("over TLS");
      } finally {
        client.shutdown();
      }
      try (ScriptSocket socket = ScriptSocket.forUrl(url, trusting, SECOND, SECOND).orElseThrow()) {
        assertThat(
                socket.eval("return redis.call('GET', KEYS[1])", List.of("agent-tls"), List.of()))
            .isEqualTo("over TLS");
      }

      for (RedisLogin untrusting : List.of(RedisLogin.of(null, PASSWORD), login(other))) {
        RedissonClient refused = RedisConnection.open(url, untrusting);
        try {
          assertThat(
                  catchThrowable(() -> refused.getBucket("agent-tls", StringCodec.INSTANCE).get()))
              .as("a client trusting %s", untrusting)
              .isNotNull();
        } finally {
          refused.shutdown();
        }
        try (ScriptSocket socket =
            ScriptSocket.forUrl(url, untrusting, SECOND, SECOND).orElseThrow()) {
          assertThat(catchThrowable(() -> socket.eval("return 1", List.of(), List.of())))
              .as("a script socket trusting %s", untrusting)
              .isNotNull();
        }
      }
    }
  }

  private static RedisLogin login(TestCertificates ca) {
    return new RedisLogin(null, PASSWORD, null, null, CaCertificates.trustManagers(ca.caPem()));
  }
}
