package dev.baton.agent.leadership;

import dev.baton.client.LuaScript;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RScript;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A group's gate key in Redis, {@code baton:{gate:<namespace>/<group>}}: the value of the one agent
 * whose gate may be open, with a time-to-live of {@code confirmWithin}. Every change is one script
 * (docs/design.md, "The agent's gate").
 */
final class GateKey {

  static final String CHANNEL = "baton:gates";

  /** No gate's key: a group's is {@code baton:{gate:<namespace>/<group>}}. */
  static final String WARM_UP_KEY = "baton:{gate:warm-up}";

  private static final LuaScript TAKE = LuaScript.load("gate-take");
  private static final LuaScript RENEW = LuaScript.load("gate-renew");
  private static final LuaScript LET_GO = LuaScript.load("gate-let-go");

  private static final Logger log = LoggerFactory.getLogger(GateKey.class);

  private final RedissonClient redisson;
  private final RScript script;
  private final long ttlMillis;
  private volatile RTopic topic;

  GateKey(RedissonClient redisson, Duration ttl) {
    this.redisson = redisson;
    this.script = redisson.getScript(StringCodec.INSTANCE);
    this.ttlMillis = ttl.toMillis();
  }

  /**
   * Calls {@code letGo} whenever an agent lets go of a key. Until Redis answers (it may be down
   * when the agent starts) the agent's 20 ms poll alone finds the key free; the subscription is
   * tried again every second on {@code retryOn}. Once subscribed, it renews a key no agent holds.
   */
  void listen(Runnable letGo, ScheduledExecutorService retryOn) {
    RTopic t = redisson.getTopic(CHANNEL, StringCodec.INSTANCE);
    try {
      t.addListenerAsync(String.class, (channel, key) -> letGo.run())
          .whenComplete(
              (id, error) -> {
                if (error == null) {
                  topic = t;
                  warmUp();
                } else {
                  retryListen(error, letGo, retryOn);
                }
              });
    } catch (RuntimeException e) {
      retryListen(e, letGo, retryOn);
    }
  }

  /**
   * A first script call costs about 30 ms in a JVM that never made one (classes to load, code to
   * interpret), against 1–2 ms after. A follower's first call is otherwise the take that opens its
   * gate in its first failover, so it pays that on the failover's clock. A renewal of a key that
   * does not exist writes nothing, whatever the value; its answer is not waited for.
   */
  private void warmUp() {
    try {
      script.evalAsync(
          WARM_UP_KEY,
          RScript.Mode.READ_WRITE,
          RENEW.source(),
          RScript.ReturnType.LONG,
          List.of(WARM_UP_KEY),
          "warm-up",
          Long.toString(ttlMillis));
    } catch (RuntimeException e) {
      log.debug("gate key warm-up not sent: {}", e.toString());
    }
  }

  private void retryListen(Throwable error, Runnable letGo, ScheduledExecutorService retryOn) {
    log.debug("cannot subscribe to {} yet: {}", CHANNEL, error.toString());
    try {
      retryOn.schedule(() -> listen(letGo, retryOn), 1, TimeUnit.SECONDS);
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  void stopListening() {
    RTopic t = topic;
    if (t != null) {
      t.removeAllListeners();
    }
  }

  static String name(String namespace, String group) {
    return "baton:{gate:" + namespace + "/" + group + "}";
  }

  /** True when the key is {@code value}'s now. */
  boolean take(String key, String value) {
    return run(TAKE, key, value, Long.toString(ttlMillis));
  }

  /** True when extended; false when it is not {@code value}'s any more. */
  boolean renew(String key, String value) {
    return run(RENEW, key, value, Long.toString(ttlMillis));
  }

  /** Deletes the key if it is {@code value}'s, and tells the waiting successors. */
  boolean letGo(String key, String value) {
    return run(LET_GO, key, value);
  }

  private boolean run(LuaScript s, String key, String... args) {
    try {
      Long r =
          script
              .<Long>evalAsync(
                  key,
                  RScript.Mode.READ_WRITE,
                  s.source(),
                  RScript.ReturnType.LONG,
                  List.of(key),
                  (Object[]) args)
              .toCompletableFuture()
              .get(ttlMillis, TimeUnit.MILLISECONDS);
      return r != null && r == 1L;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted");
    } catch (Exception e) {
      throw new IllegalStateException("Redis did not answer: " + e.getClass().getSimpleName());
    }
  }
}
