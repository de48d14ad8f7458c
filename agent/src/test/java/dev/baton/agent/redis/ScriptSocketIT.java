package dev.baton.agent.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testkit.LocalRedis;
import java.io.IOException;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The hold key's own connection, against a real redis-server. */
class ScriptSocketIT {

  private static final Duration SECOND = Duration.ofSeconds(1);

  private static ScriptSocket socket(String url, String user, String password) {
    return ScriptSocket.forUrl(url, user, password, SECOND, SECOND).orElseThrow();
  }

  @Test
  void aScriptsAnswerComesBackAsTheLibraryReadsIt() throws Exception {
    try (LocalRedis redis = LocalRedis.start();
        ScriptSocket s = socket(redis.url(), null, null)) {
      Object answer =
          s.eval(
              "redis.call('SET', KEYS[1], ARGV[1]);"
                  + " return {1, redis.call('GET', KEYS[1]), false, {7, 'in'}, 'é'}",
              List.of("k"),
              List.of("v w"));

      assertThat(answer).isEqualTo(Arrays.asList(1L, "v w", null, List.of(7L, "in"), "é"));
      assertThat(redis.command("GET", "k")).endsWith("v w");
    }
  }

  @Test
  void anErrorIsItsFirstWordAndTheConnectionStaysInStep() throws Exception {
    try (LocalRedis redis = LocalRedis.start();
        ScriptSocket s = socket(redis.url(), null, null)) {
      assertThatThrownBy(() -> s.eval("return redis.call('NOSUCH')", List.of(), List.of()))
          .isInstanceOf(ScriptSocket.ErrorAnswer.class)
          .hasMessage("Redis answered an error: ERR");
      assertThat(s.eval("return 5", List.of(), List.of())).isEqualTo(5L);
      assertThatThrownBy(
              () ->
                  s.eval("return {1, redis.error_reply('NESTED inside'), 3}", List.of(), List.of()))
          .isInstanceOf(ScriptSocket.ErrorAnswer.class)
          .hasMessage("Redis answered an error: NESTED");
      assertThat(s.eval("return 6", List.of(), List.of())).isEqualTo(6L);
      assertThat(clients(redis)).as("one connection throughout").isEqualTo(1 + 1);
    }
  }

  @Test
  void anAclUserLogsInAndAWrongPasswordNeverShows() throws Exception {
    try (LocalRedis redis = LocalRedis.start()) {
      redis.command("ACL", "SETUSER", "group-a", "on", ">right-pw", "~a:*", "+eval", "+set");
      try (ScriptSocket s = socket(redis.url(), "group-a", "right-pw")) {
        assertThat(s.eval("return redis.call('SET', KEYS[1], 1)", List.of("a:1"), List.of()))
            .isEqualTo("OK");
        assertThatThrownBy(
                () -> s.eval("return redis.call('SET', KEYS[1], 1)", List.of("b:1"), List.of()))
            .hasMessage("Redis answered an error: NOPERM");
      }
      try (ScriptSocket wrong = socket(redis.url(), "group-a", "wrong-pw-7")) {
        assertThatThrownBy(() -> wrong.eval("return 1", List.of(), List.of()))
            .hasMessage("Redis answered an error: WRONGPASS")
            .satisfies(e -> assertThat(String.valueOf(e)).doesNotContain("wrong-pw-7"));
      }
    }
  }

  @Test
  void aCallNotAnsweredInTimeDropsTheConnectionAndTheNextConnectsAnew() throws Exception {
    try (LocalRedis redis = LocalRedis.start();
        ScriptSocket s = socket(redis.url(), null, null)) {
      s.eval("return redis.call('INCR', KEYS[1])", List.of("n"), List.of());

      redis.freeze();
      assertThatThrownBy(
              () -> s.eval("return redis.call('INCR', KEYS[1])", List.of("n"), List.of()))
          .isInstanceOf(IOException.class)
          .isNotInstanceOf(ScriptSocket.ErrorAnswer.class);
      redis.thaw();

      // The late call ran once, its answer went to the dropped connection; this one is its own.
      assertThat(s.eval("return redis.call('INCR', KEYS[1])", List.of("n"), List.of()))
          .isEqualTo(3L);
    }
  }

  @Test
  void sentinelClusterAndOtherDatabasesAreLeftToTheLibrary() {
    assertThat(
            ScriptSocket.forUrl("redis-sentinel://s1:26379/mymaster", null, null, SECOND, SECOND))
        .isEmpty();
    assertThat(ScriptSocket.forUrl("redis-cluster://n1:6379,n2:6379", null, null, SECOND, SECOND))
        .isEmpty();
    assertThat(ScriptSocket.forUrl("redis://r:6379/2", null, null, SECOND, SECOND)).isEmpty();
    assertThat(ScriptSocket.forUrl("rediss://u:p@r:6380", null, null, SECOND, SECOND)).isPresent();
  }

  /** Clients connected now, this test's own command connection included. */
  private static int clients(LocalRedis redis) {
    String info = redis.command("INFO", "clients");
    for (String line : info.split("\r?\n")) {
      if (line.startsWith("connected_clients:")) {
        return Integer.parseInt(line.substring("connected_clients:".length()).trim());
      }
    }
    throw new IllegalStateException(info);
  }
}
