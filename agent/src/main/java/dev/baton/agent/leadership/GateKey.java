package dev.baton.agent.leadership;

import dev.baton.client.LockValues;
import dev.baton.client.LuaScript;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.redisson.api.RScript;
import org.redisson.api.RTopic;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A group's gate key in Redis, {@code baton:{gate:<namespace>/<group>}}: the one hold whose gate
 * may be open, and until when by Redis's clock ({@code <until> <hold value>}, {@code 0 <hold
 * value>} once let go). Every change is one script (docs/design.md, "The agent: leadership, locks
 * and a gate for any container").
 */
final class GateKey {

  static final String CHANNEL = "baton:gates";

  /** No gate's key: a group's is {@code baton:{gate:<namespace>/<group>}}. */
  static final String WARM_UP_KEY = "baton:{gate:warm-up}";

  private static final LuaScript TAKE = LuaScript.load("gate-take");
  private static final LuaScript RENEW = LuaScript.load("gate-renew");
  private static final LuaScript LET_GO = LuaScript.load("gate-let-go");
  private static final LuaScript HOLDER = LuaScript.load("gate-holder");

  /**
   * How long a key outlives its last write: only so that a group gone for a day leaves nothing.
   * Whether a hold is alive is the time in its value, by Redis's clock, not this expiry.
   */
  static final long KEY_LIFETIME_MILLIS = TimeUnit.DAYS.toMillis(1);

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
   * Calls {@code changed} with a key's name whenever an agent takes or lets go of it. Until Redis
   * answers (it may be down when the agent starts) the agent's 20 ms poll alone finds the key free;
   * the subscription is tried again every second on {@code retryOn}. Once subscribed, it renews a
   * key no agent holds.
   */
  void listen(Consumer<String> changed, ScheduledExecutorService retryOn) {
    RTopic t = redisson.getTopic(CHANNEL, StringCodec.INSTANCE);
    try {
      t.addListenerAsync(String.class, (channel, key) -> changed.accept(key))
          .whenComplete(
              (id, error) -> {
                if (error == null) {
                  topic = t;
                  warmUp();
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
          Long.toString(ttlMillis),
          Long.toString(KEY_LIFETIME_MILLIS),
          "0");
    } catch (RuntimeException e) {
      log.debug("gate key warm-up not sent: {}", e.toString());
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
    RTopic t = topic;
    if (t != null) {
      t.removeAllListeners();
    }
  }

  static String name(String namespace, String group) {
    return "baton:{gate:" + namespace + "/" + group + "}";
  }

  /** What a take found. */
  enum Take {
    /** The key was released or had run out: the gate may open at once. */
    NOW,
    /**
     * The key was absent, perhaps lost with a holder still open: the gate may open only once a
     * renewal sent a whole ttl after this take's answer still finds the hold.
     */
    AFTER_A_TTL,
    /** Another hold is alive. */
    REFUSED
  }

  /** What a renewal found. */
  enum Renewal {
    EXTENDED,
    /** The key was absent and taken again (asked for only while the gate's deadline lasts). */
    RETAKEN,
    /** The key is absent: lost, and not taken again. */
    LOST,
    /** Another's, released or run out: the gate must close. */
    GONE
  }

  /** The live holder of a key, and whether the node that keeps it may evict it. */
  record Holder(String value, String maxmemory, String policy) {}

  /** A value for one hold: never used for another, so a late script of it touches no later hold. */
  static String holdValue(String namespace, String pod, long term) {
    return "agent:" + namespace + "/" + pod + ":" + term + ":" + LockValues.random();
  }

  /** The pod a hold value names, or null. */
  static String podOf(String value) {
    int slash = value == null ? -1 : value.indexOf('/');
    int colon = slash < 0 ? -1 : value.indexOf(':', slash);
    return colon < 0 ? null : value.substring(slash + 1, colon);
  }

  /** The term a hold value names, or null. */
  static Long termOf(String value) {
    int slash = value == null ? -1 : value.indexOf('/');
    int colon = slash < 0 ? -1 : value.indexOf(':', slash);
    int next = colon < 0 ? -1 : value.indexOf(':', colon + 1);
    try {
      return next < 0 ? null : Long.valueOf(value.substring(colon + 1, next));
    } catch (NumberFormatException e) {
      return null;
    }
  }

  Take take(String key, String value) {
    long r = run(TAKE, key, value, Long.toString(ttlMillis), Long.toString(KEY_LIFETIME_MILLIS));
    return r == 1 ? Take.NOW : r == 2 ? Take.AFTER_A_TTL : Take.REFUSED;
  }

  /**
   * @param retake whether an absent key may be taken again: only while the gate is open within its
   *     deadline, so no other gate can have opened since the key was lost
   */
  Renewal renew(String key, String value, boolean retake) {
    long r =
        run(
            RENEW,
            key,
            value,
            Long.toString(ttlMillis),
            Long.toString(KEY_LIFETIME_MILLIS),
            retake ? "1" : "0");
    return switch ((int) r) {
      case 1 -> Renewal.EXTENDED;
      case 3 -> Renewal.RETAKEN;
      case 2 -> Renewal.LOST;
      default -> Renewal.GONE;
    };
  }

  /** Marks the hold released, if it is {@code value}'s, and tells the waiting successors. */
  boolean letGo(String key, String value) {
    return run(LET_GO, key, value, Long.toString(KEY_LIFETIME_MILLIS)) == 1;
  }

  Holder holder(String key) {
    List<Object> r = call(HOLDER, RScript.ReturnType.LIST, key);
    Object holder = r.isEmpty() ? null : r.get(0);
    return new Holder(
        holder instanceof String h && !h.isEmpty() ? h : null,
        r.size() > 1 ? String.valueOf(r.get(1)) : "",
        r.size() > 2 ? String.valueOf(r.get(2)) : "");
  }

  private long run(LuaScript s, String key, String... args) {
    Long r = call(s, RScript.ReturnType.LONG, key, args);
    return r == null ? 0 : r;
  }

  private <T> T call(LuaScript s, RScript.ReturnType type, String key, String... args) {
    try {
      return script
          .<T>evalAsync(
              key, RScript.Mode.READ_WRITE, s.source(), type, List.of(key), (Object[]) args)
          .toCompletableFuture()
          .get(ttlMillis, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted");
    } catch (Exception e) {
      throw new IllegalStateException("Redis did not answer: " + e.getClass().getSimpleName());
    }
  }
}
