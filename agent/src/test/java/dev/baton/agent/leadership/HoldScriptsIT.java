package dev.baton.agent.leadership;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.agent.redis.RedisConnection;
import dev.baton.testkit.LocalRedis;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * The hold scripts' rules, each stated once against a real redis-server: the differential test
 * holds the Java copy to the Lua, and this holds the Lua to the rules (a rule changed in both
 * copies at once would pass the differential test).
 */
class HoldScriptsIT {

  private static final String KEY = HoldKey.name("shop", "orders");

  private static LocalRedis redis;
  private static RedissonClient client;
  private static HoldKey hold;

  @BeforeAll
  static void start() {
    redis = LocalRedis.start();
    client = RedisConnection.open(redis.url(), null, null);
    hold = new HoldKey(client, Duration.ofSeconds(5));
  }

  @AfterAll
  static void stop() {
    client.shutdown();
    redis.close();
  }

  @BeforeEach
  void empty() {
    redis.command("FLUSHALL");
  }

  private static String name(String pod, long term, int n) {
    return HoldValue.hold("shop", pod, term, "n", n, "10.0.0.1");
  }

  @Test
  void aTakeOrARetakeBelowTheNewestTermIsRefused() {
    assertThat(hold.take(KEY, name("a", 5, 0), 5, "").code()).isEqualTo(2);
    assertThat(hold.renew(KEY, name("a", 5, 0), 5, "", true).code()).isEqualTo(1);
    assertThat(hold.letGo(KEY, name("a", 5, 0)).code()).isEqualTo(1);
    assertThat(hold.take(KEY, name("b", 4, 0), 4, "").code()).as("released at term 5").isEqualTo(3);

    redis.command("DEL", KEY); // the mark beside it stays
    assertThat(hold.take(KEY, name("b", 4, 1), 4, "").code()).as("absent, mark 5").isEqualTo(3);
    assertThat(hold.renew(KEY, name("b", 4, 1), 4, name("b", 4, 2), false).code())
        .as("a re-take below the mark")
        .isZero();
    assertThat(hold.holder(KEY).found()).as("still absent").isEmpty();
  }

  @Test
  void aTakeNeverTakesOverItsOwnHold() {
    String mine = name("a", 1, 0);
    assertThat(hold.take(KEY, mine, 1, "").code()).isEqualTo(2);
    String v = hold.holder(KEY).found();
    // The same take run again (a resend) names the value it wrote as the one it watched.
    HoldKey.Answer again = hold.take(KEY, mine, 1, v);
    assertThat(again.code()).isZero();
    assertThat(hold.holder(KEY).found()).isEqualTo(v);
  }

  @Test
  void anUnprovenHoldIsNeverMarkedReleased() {
    String mine = name("a", 1, 0);
    assertThat(hold.take(KEY, mine, 1, "").code()).isEqualTo(2);
    assertThat(hold.letGo(KEY, mine).code()).isZero();
    assertThat(HoldValue.parse(hold.holder(KEY).found()).state()).isEqualTo(HoldValue.UNPROVEN);
  }

  @Test
  void noTwoWritesOfTheKeyWriteTheSameValue() {
    Set<String> written = new HashSet<>();
    for (int round = 0; round < 3; round++) {
      String a = name("a", 1, round);
      hold.take(KEY, a, 1, "");
      written.add(hold.holder(KEY).found());
      hold.renew(KEY, a, 1, "", true);
      written.add(hold.holder(KEY).found());
      String watched = hold.holder(KEY).found();
      String b = name("b", 1, round);
      assertThat(hold.take(KEY, b, 1, watched).code()).as("taken over as watched").isEqualTo(1);
      written.add(hold.holder(KEY).found());
      hold.letGo(KEY, b);
      written.add(hold.holder(KEY).found());
      redis.command("DEL", KEY);
    }
    assertThat(written).as("every value written").hasSize(12);
  }
}
