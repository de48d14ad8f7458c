package dev.baton.agent.leadership;

import dev.baton.agent.redis.ScriptSocket;
import dev.baton.client.LuaScript;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.redisson.api.RScript;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.api.options.OptionalOptions;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A group's hold key in Redis, {@code baton:{gate:<namespace>/<group>}}: which hold's gates may be
 * open, for which term, by which write, written by which incarnation of Redis ({@code <state>
 * <term> <seq> <incarnation> <hold>}; hold-value.lua). Every change is one script (docs/design.md,
 * "The agent: leadership, locks and a gate for any container"); this class only runs them and reads
 * their answers, which the leadership's decision interprets ({@link HoldAnswers}).
 *
 * <p>Each script is sent once: on the agent's own connection to a single server ({@link
 * ScriptSocket}), which drops a connection whose answer it gave up on, or through the client
 * library, told not to resend one after its response timeout, as it otherwise does. A resent take
 * could run twice; a call given up on is recognised by its hold name instead, when the key is read
 * next.
 */
final class HoldKey {

  static final String CHANNEL = "baton:gates";

  /** No gate's key: a group's is {@code baton:{gate:<namespace>/<group>}}. */
  static final String WARM_UP_KEY = "baton:{gate:warm-up}";

  private static final LuaScript TAKE = LuaScript.load("hold-take");
  private static final LuaScript RENEW = LuaScript.load("hold-renew");
  private static final LuaScript LET_GO = LuaScript.load("hold-let-go");
  private static final LuaScript HOLDER = LuaScript.load("hold-read");
  private static final LuaScript REDIS = LuaScript.load("hold-redis");

  /**
   * How long a key outlives its last write: only so that a group gone for a day leaves nothing.
   * Nothing decides by this expiry; a key Redis expires early (its clock stepped) is absent, which
   * costs a wait, never safety.
   */
  static final long KEY_LIFETIME_MILLIS = TimeUnit.DAYS.toMillis(1);

  private static final Logger log = LoggerFactory.getLogger(HoldKey.class);

  /**
   * A script's answer.
   *
   * @param code what the script did (see each script)
   * @param found the key's value as the script found it, "" when absent
   * @param incarnation the Redis that answered: {@code <run_id>.<master_replid>}
   * @param redisMillis Redis's clock when it ran the script, only ever reported
   */
  record Answer(int code, String found, String incarnation, long redisMillis) {

    static Answer of(List<Object> reply) {
      return new Answer(
          ((Number) reply.get(0)).intValue(),
          String.valueOf(reply.get(1)),
          String.valueOf(reply.get(2)),
          ((Number) reply.get(3)).longValue());
    }
  }

  /**
   * What the node of the key does with it, from INFO; each field "" when INFO did not say (an ACL
   * refused it).
   */
  record RedisFacts(
      String maxmemory,
      String policy,
      String aofEnabled,
      String rdbSaves,
      String role,
      String replicas,
      String goodReplicas,
      String incarnation,
      long redisMillis) {}

  private final RedissonClient redisson;
  private final RScript script;
  private final ScriptSocket socket; // null: the scripts go through the library
  private final long timeoutMillis;
  private volatile RTopic topic;

  HoldKey(RedissonClient redisson, Duration timeout) {
    this(redisson, null, timeout);
  }

  /**
   * @param socket the connection the scripts are sent on, or null to send them through {@code
   *     redisson} (Sentinel, Cluster)
   */
  HoldKey(RedissonClient redisson, ScriptSocket socket, Duration timeout) {
    this.redisson = redisson;
    this.socket = socket;
    this.script =
        redisson.getScript(OptionalOptions.defaults().codec(StringCodec.INSTANCE).retryAttempts(0));
    this.timeoutMillis = timeout.toMillis();
  }

  /**
   * Calls {@code changed} with a key's name whenever an agent takes, proves or lets go of it. Until
   * Redis answers (it may be down when the agent starts) the agent's 20 ms poll alone finds the key
   * free; the subscription is tried again every second on {@code retryOn}. Once subscribed, it
   * reads a key no agent holds.
   */
  void listen(Consumer<String> changed, ScheduledExecutorService retryOn) {
    RTopic t = redisson.getTopic(CHANNEL, StringCodec.INSTANCE);
    try {
      t.addListenerAsync(String.class, (channel, key) -> changed.accept(key))
          .whenComplete(
              (id, error) -> {
                if (error == null) {
                  topic = t;
                  retryOn.execute(this::warmUp);
                } else {
                  retryListen(error, changed, retryOn);
                }
              });
    } catch (RuntimeException e) {
      retryListen(e, changed, retryOn);
    }
  }

  /**
   * A first script call costs about 30 ms in a JVM that never made one (classes to load, code to
   * interpret), against 1–2 ms after. A follower's first call is otherwise the take that opens its
   * gate in its first failover, so it pays that on the failover's clock. A renewal of a key nobody
   * holds, with no re-take, writes nothing; its answer is not waited for.
   */
  private void warmUp() {
    if (socket != null) {
      try {
        call(RENEW, WARM_UP_KEY, "warm-up", "0", "", "0", Long.toString(KEY_LIFETIME_MILLIS));
      } catch (RuntimeException e) {
        log.debug("hold key warm-up: {}", e.getMessage());
      }
      return;
    }
    try {
      script.evalAsync(
          WARM_UP_KEY,
          RScript.Mode.READ_WRITE,
          RENEW.source(),
          RScript.ReturnType.LIST,
          keys(WARM_UP_KEY),
          "warm-up",
          "0",
          "",
          "0",
          Long.toString(KEY_LIFETIME_MILLIS));
    } catch (RuntimeException e) {
      log.debug("hold key warm-up not sent: {}", e.toString());
    }
  }

  private void retryListen(
      Throwable error, Consumer<String> changed, ScheduledExecutorService retryOn) {
    log.debug("cannot subscribe to {} yet: {}", CHANNEL, error.toString());
    try {
      retryOn.schedule(() -> listen(changed, retryOn), 1, TimeUnit.SECONDS);
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  void stopListening() {
    if (socket != null) {
      socket.close();
    }
    RTopic t = topic;
    if (t != null) {
      t.removeAllListeners();
    }
  }

  static String name(String namespace, String group) {
    return "baton:{gate:" + namespace + "/" + group + "}";
  }

  /** Beside a hold key, the highest term a take wrote to it (one hash tag: one slot). */
  static String termKey(String key) {
    return key + ":term";
  }

  /** Beside a hold key, the number of the last write to it. */
  static String writesKey(String key) {
    return key + ":writes";
  }

  /** The keys every script is given: the hold key, its term mark, its write counter. */
  static List<Object> keys(String key) {
    return List.of(key, termKey(key), writesKey(key));
  }

  Answer take(String key, String hold, long term, String expected) {
    return answer(
        TAKE, key, hold, Long.toString(term), expected, Long.toString(KEY_LIFETIME_MILLIS));
  }

  /**
   * @param retakeAs the hold name an absent key is taken again under, or "" when it may not be
   */
  Answer renew(String key, String hold, long term, String retakeAs, boolean prove) {
    return answer(
        RENEW,
        key,
        hold,
        Long.toString(term),
        retakeAs,
        prove ? "1" : "0",
        Long.toString(KEY_LIFETIME_MILLIS));
  }

  Answer letGo(String key, String hold) {
    return answer(LET_GO, key, hold, Long.toString(KEY_LIFETIME_MILLIS));
  }

  Answer holder(String key) {
    return answer(HOLDER, key);
  }

  RedisFacts redisFacts(String key) {
    List<Object> r = call(REDIS, key);
    return new RedisFacts(
        String.valueOf(r.get(0)),
        String.valueOf(r.get(1)),
        String.valueOf(r.get(2)),
        String.valueOf(r.get(3)),
        String.valueOf(r.get(4)),
        String.valueOf(r.get(5)),
        String.valueOf(r.get(6)),
        String.valueOf(r.get(7)),
        ((Number) r.get(8)).longValue());
  }

  private Answer answer(LuaScript s, String key, String... args) {
    return Answer.of(call(s, key, args));
  }

  /** Runs a script, bounded by the agent's own clock; throws when Redis did not answer. */
  @SuppressWarnings("unchecked")
  private List<Object> call(LuaScript s, String key, String... args) {
    if (socket != null) {
      try {
        return (List<Object>)
            socket.eval(s.source(), List.of(key, termKey(key), writesKey(key)), List.of(args));
      } catch (IOException | ClassCastException e) {
        throw new IllegalStateException("Redis did not answer: " + e.getMessage());
      }
    }
    try {
      return script
          .<List<Object>>evalAsync(
              key,
              RScript.Mode.READ_WRITE,
              s.source(),
              RScript.ReturnType.LIST,
              keys(key),
              (Object[]) args)
          .toCompletableFuture()
          .get(timeoutMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted");
    } catch (Exception e) {
      throw new IllegalStateException("Redis did not answer: " + e.getClass().getSimpleName());
    }
  }
}
