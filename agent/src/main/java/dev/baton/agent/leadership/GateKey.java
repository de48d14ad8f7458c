package dev.baton.agent.leadership;

import dev.baton.client.LuaScript;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * A group's gate key in Redis, {@code baton:{gate:<namespace>/<group>}}: the value of the one agent
 * whose gate may be open, with a time-to-live of {@code confirmWithin}. Every change is one script
 * (docs/design.md, "The agent's gate").
 */
final class GateKey {

  static final String CHANNEL = "baton:gates";

  private static final LuaScript TAKE = LuaScript.load("gate-take");
  private static final LuaScript RENEW = LuaScript.load("gate-renew");
  private static final LuaScript LET_GO = LuaScript.load("gate-let-go");

  private final RScript script;
  private final long ttlMillis;

  GateKey(RedissonClient redisson, Duration ttl) {
    this.script = redisson.getScript(StringCodec.INSTANCE);
    this.ttlMillis = ttl.toMillis();
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
