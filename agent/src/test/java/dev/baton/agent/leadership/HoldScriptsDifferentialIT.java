package dev.baton.agent.leadership;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.agent.redis.RedisConnection;
import dev.baton.testkit.LocalRedis;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.redisson.api.RedissonClient;

/**
 * The gate scripts as the gate model knows them ({@link HoldScriptsModel}) against the Lua a real
 * redis-server runs, through the agent's own calls ({@link HoldKey}): random sequences of takes
 * (with and without a watched value, for terms old and new), renewals (re-takes and proofs),
 * let-goes and reads, among deletions of the key, restarts without data and crashes back to an
 * older snapshot. After every step both must have answered alike and hold the same key and term
 * beside it. Redis's clock is the one thing not compared: no script decides by it.
 */
class HoldScriptsDifferentialIT {

  private static final String KEY = HoldKey.name("shop", "g");
  private static final long[] SEEDS = {20261204L, 7L, 4242L};
  private static final int STEPS = 700;

  @Test
  void theModelAnswersAsTheLuaDoesOnRandomSequences() {
    try (LocalRedis redis = LocalRedis.start()) {
      for (long seed : SEEDS) {
        run(redis, seed);
      }
    }
  }

  private static void run(LocalRedis redis, long seed) {
    Random random = new Random(seed);
    redis.command("FLUSHALL");
    RedissonClient client = RedisConnection.open(redis.url(), null, null);
    try {
      HoldKey real = new HoldKey(client, Duration.ofSeconds(5));
      HoldScriptsModel model = new HoldScriptsModel(incarnation(real), null, 0, 0, 0);
      HoldScriptsModel saved = null;
      List<String> holds = new ArrayList<>();
      List<String> seen = new ArrayList<>();
      for (int step = 0; step < STEPS; step++) {
        int op = random.nextInt(100);
        String what;
        HoldKey.Answer answer;
        HoldScriptsModel.Result expected;
        if (op < 30) {
          long term = 1 + random.nextInt(4);
          // A take runs again now and then (a client that resends): its hold names no other call.
          String hold =
              !holds.isEmpty() && random.nextInt(5) == 0
                  ? pick(random, holds)
                  : "agent:shop/p" + random.nextInt(3) + ":" + term + ":s-" + step;
          term = Long.parseLong(hold.split(":")[2]);
          String watched = seen.isEmpty() || random.nextBoolean() ? "" : pick(random, seen);
          holds.add(hold);
          what = "take " + hold + " watched '" + watched + "'";
          answer = real.take(KEY, hold, term, watched);
          expected = model.take(hold, term, watched);
        } else if (op < 55 && !holds.isEmpty()) {
          String hold = pick(random, holds);
          long term = Long.parseLong(hold.split(":")[2]);
          String retakeAs = random.nextBoolean() ? "" : hold + ".r" + step;
          if (!retakeAs.isEmpty()) {
            holds.add(retakeAs);
          }
          boolean prove = random.nextBoolean();
          what = "renew " + hold + " retake as '" + retakeAs + "' prove " + prove;
          answer = real.renew(KEY, hold, term, retakeAs, prove);
          expected = model.renew(hold, term, retakeAs, prove);
        } else if (op < 70 && !holds.isEmpty()) {
          String hold = pick(random, holds);
          what = "let go " + hold;
          answer = real.letGo(KEY, hold);
          expected = model.letGo(hold);
        } else if (op < 85) {
          what = "holder";
          answer = real.holder(KEY);
          expected = model.holder();
        } else if (op < 91) {
          what = "DEL";
          redis.command("DEL", KEY);
          model = model.deleted();
          answer = null;
          expected = null;
        } else if (op < 96) {
          what = "SAVE";
          redis.command("SAVE");
          saved = model;
          answer = null;
          expected = null;
        } else if (op < 98 || saved == null) {
          what = "restart empty";
          redis.restart(false);
          saved = null;
          model = model.restarted(incarnation(real), null);
          answer = null;
          expected = null;
        } else {
          what = "crash, back to the last snapshot";
          redis.crashAndRestoreLastSnapshot();
          model = model.restarted(incarnation(real), saved);
          answer = null;
          expected = null;
        }
        String where = "seed " + seed + ", step " + step + ": " + what;
        if (answer != null) {
          assertThat(answer.code()).as(where + ": code").isEqualTo(expected.answer().code());
          assertThat(answer.found())
              .as(where + ": value found")
              .isEqualTo(expected.answer().found());
          assertThat(answer.incarnation()).as(where).isEqualTo(model.incarnation());
          model = expected.after();
          if (!answer.found().isEmpty()) {
            seen.add(answer.found());
          }
        }
        assertThat(value(redis, KEY)).as(where + ": the key").isEqualTo(model.value());
        String term = value(redis, HoldKey.termKey(KEY));
        assertThat(term == null ? 0 : Long.parseLong(term))
            .as(where + ": the term beside it")
            .isEqualTo(model.highest());
        String writes = value(redis, HoldKey.writesKey(KEY));
        assertThat(writes == null ? 0 : Long.parseLong(writes))
            .as(where + ": the write number beside it")
            .isEqualTo(model.writes());
      }
    } finally {
      client.shutdown();
    }
  }

  /** The incarnation a real script names (a read that writes nothing), once Redis answers. */
  private static String incarnation(HoldKey real) {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (true) {
      try {
        return real.holder(KEY).incarnation();
      } catch (IllegalStateException e) {
        if (System.nanoTime() > deadline) {
          throw e;
        }
      }
    }
  }

  private static String pick(Random random, List<String> from) {
    return from.get(random.nextInt(from.size()));
  }

  private static String value(LocalRedis redis, String key) {
    String reply = redis.command("GET", key);
    if (reply.startsWith("$-1")) {
      return null;
    }
    return reply.substring(reply.indexOf('\n') + 1).trim();
  }
}
