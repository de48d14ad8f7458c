package dev.baton.agent.leadership;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.agent.redis.RedisConnection;
import dev.baton.agent.redis.ScriptSocket;
import dev.baton.client.LuaScript;
import dev.baton.testkit.LocalRedis;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * A hold script is sent once. A real redis-server is stopped (SIGSTOP) for longer than the client
 * library's response timeout (1 s) and its retry delay; the take sent meanwhile is given up on by
 * the agent, and once Redis runs again it has run the script exactly once. The same call through
 * the library's defaults, the agent's connection settings unchanged, runs twice: that resend is
 * what could rewrite a value a watcher had already seen. The agent's own script socket ({@link
 * ScriptSocket}) sends once too: it drops the connection it gave up on.
 */
class HoldKeyResendIT {

  private static final String KEY = HoldKey.name("shop", "orders");
  private static final String OTHER_KEY = HoldKey.name("shop", "reports");
  private static final String HOLD = HoldValue.hold("shop", "orders-0", 1, "n0", 0, "10.0.0.7");

  /** Longer than the client's 1 s response timeout and its 50 ms retry delay. */
  private static final Duration STOPPED = Duration.ofMillis(1_600);

  /** Through the library (as over Sentinel or Cluster) and on the agent's own script socket. */
  @ParameterizedTest(name = "own socket: {0}")
  @ValueSource(booleans = {false, true})
  void aTakeGivenUpOnWhileRedisIsStoppedRunsOnce(boolean ownSocket) throws Exception {
    try (LocalRedis redis = LocalRedis.start()) {
      RedissonClient client = RedisConnection.open(redis.url(), null, null);
      ScriptSocket socket =
          ownSocket
              ? ScriptSocket.forUrl(
                      redis.url(),
                      null,
                      null,
                      RedisConnection.CONNECT_WITHIN,
                      RedisConnection.ANSWER_WITHIN)
                  .orElseThrow()
              : null;
      try {
        HoldKey hold = new HoldKey(client, socket, Duration.ofSeconds(5));
        // Connected, and the take script in Redis's script cache, as after an agent's first take.
        hold.take(OTHER_KEY, HOLD, 1, "");
        redis.command("CONFIG", "RESETSTAT");

        redis.freeze();
        long stoppedAt = System.nanoTime();
        assertThatThrownBy(() -> hold.take(KEY, HOLD, 1, ""))
            .hasMessageContaining("Redis did not answer");
        sleepUntil(stoppedAt, STOPPED);
        redis.thaw();

        await().atMost(Duration.ofSeconds(10)).until(() -> evalCalls(redis) >= 1);
        Thread.sleep(500); // a resend, if there were one, has arrived by now
        assertThat(evalCalls(redis)).as("EVAL calls while and after Redis was stopped").isOne();
        HoldValue v = HoldValue.parse(hold.holder(KEY).found());
        assertThat(v.hold()).isEqualTo(HOLD);
        assertThat(v.seq()).as("the write's number").isOne();
      } finally {
        if (socket != null) {
          socket.close();
        }
        client.shutdown();
      }
    }
  }

  @Test
  void theLibraryDefaultsResendTheSameTake() throws Exception {
    try (LocalRedis redis = LocalRedis.start()) {
      RedissonClient client = RedisConnection.open(redis.url(), null, null);
      try {
        RScript resending = client.getScript(StringCodec.INSTANCE);
        new HoldKey(client, Duration.ofSeconds(5)).take(OTHER_KEY, HOLD, 1, "");
        redis.command("CONFIG", "RESETSTAT");

        redis.freeze();
        long stoppedAt = System.nanoTime();
        var pending =
            resending.evalAsync(
                KEY,
                RScript.Mode.READ_WRITE,
                LuaScript.load("hold-take").source(),
                RScript.ReturnType.LIST,
                HoldKey.keys(KEY),
                HOLD,
                "1",
                "",
                "86400000");
        sleepUntil(stoppedAt, STOPPED);
        redis.thaw();

        await().atMost(Duration.ofSeconds(10)).until(() -> evalCalls(redis) >= 2);
        pending.toCompletableFuture().handle((answer, error) -> null).get();
        assertThat(evalCalls(redis)).as("the take was sent twice").isEqualTo(2);
      } finally {
        client.shutdown();
      }
    }
  }

  private static void sleepUntil(long sinceNanos, Duration d) throws InterruptedException {
    long left = d.toNanos() - (System.nanoTime() - sinceNanos);
    if (left > 0) {
      Thread.sleep(left / 1_000_000, (int) (left % 1_000_000));
    }
  }

  private static final Pattern SCRIPT_CALLS =
      Pattern.compile("cmdstat_eval(?:sha)?:calls=(\\d+),.*failed_calls=(\\d+)");

  /** Scripts Redis ran since its statistics were reset: EVAL and EVALSHA, less those refused. */
  private static long evalCalls(LocalRedis redis) {
    Matcher m = SCRIPT_CALLS.matcher(redis.command("INFO", "commandstats"));
    long ran = 0;
    while (m.find()) {
      ran += Long.parseLong(m.group(1)) - Long.parseLong(m.group(2));
    }
    return ran;
  }
}
