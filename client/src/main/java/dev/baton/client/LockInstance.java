package dev.baton.client;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;

/**
 * One Redis (or Sentinel-managed master) that holds lock keys. Every operation is one script and
 * one round trip, and ends in an {@link InstanceView}: a failure becomes an unreachable view, never
 * an exception, so a quorum can be counted.
 */
public final class LockInstance {

  private final String name;
  private final RScript script;
  private final String offlineError;

  public LockInstance(String name, RedissonClient redisson) {
    this.name = name;
    this.script = redisson.getScript(StringCodec.INSTANCE);
    this.offlineError = null;
  }

  private LockInstance(String name, String offlineError) {
    this.name = name;
    this.script = null;
    this.offlineError = offlineError;
  }

  /** An instance that could not even be connected to: every call answers unreachable. */
  public static LockInstance offline(String name, String error) {
    return new LockInstance(name, error);
  }

  public String name() {
    return name;
  }

  CompletableFuture<InstanceView> acquire(
      LockKeys keys, String value, long ttlMillis, long floor, long reserved) {
    return run(
        LockScripts.ACQUIRE,
        keys.all(),
        value,
        Long.toString(ttlMillis),
        Long.toString(Math.max(0, floor)),
        Long.toString(Math.max(0, reserved)));
  }

  CompletableFuture<InstanceView> fence(LockKeys keys, String value, long token) {
    return run(LockScripts.FENCE, keys.both(), value, Long.toString(token));
  }

  CompletableFuture<InstanceView> renew(LockKeys keys, String value, long ttlMillis, long token) {
    return run(
        LockScripts.RENEW, keys.all(), value, Long.toString(ttlMillis), Long.toString(token));
  }

  CompletableFuture<InstanceView> release(LockKeys keys, String value) {
    return run(LockScripts.RELEASE, keys.both(), value);
  }

  CompletableFuture<InstanceView> observe(LockKeys keys) {
    return run(LockScripts.OBSERVE, keys.all());
  }

  /**
   * Reserves tokens up to {@code ceiling}, which the caller has recorded durably; see {@code
   * counter-reserve.lua}. The view's {@code reserved} is the ceiling in force afterwards.
   */
  CompletableFuture<InstanceView> reserve(LockKeys keys, long floor, long ceiling) {
    return run(
        LockScripts.RESERVE,
        List.of(keys.token(), keys.reservation(), keys.reservedReplid()),
        Long.toString(Math.max(0, floor)),
        Long.toString(ceiling));
  }

  private CompletableFuture<InstanceView> run(LockScripts lua, List<Object> keys, Object... args) {
    if (script == null) {
      return CompletableFuture.completedFuture(InstanceView.unreachable(name, offlineError));
    }
    CompletableFuture<List<Object>> call;
    try {
      call =
          script
              .<List<Object>>evalAsync(
                  (String) keys.get(0),
                  RScript.Mode.READ_WRITE,
                  lua.source(),
                  RScript.ReturnType.LIST,
                  keys,
                  args)
              .toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.completedFuture(
          InstanceView.unreachable(name, e.getClass().getSimpleName()));
    }
    boolean reservation = lua == LockScripts.RESERVE;
    return call.handle(
        (r, e) ->
            e != null
                ? InstanceView.unreachable(name, cause(e).getClass().getSimpleName())
                : reservation ? parseReservation(r) : parse(r));
  }

  private InstanceView parse(List<Object> r) {
    String value = (String) r.get(1);
    long code = (Long) r.get(0);
    long reserved = r.size() > 4 ? (Long) r.get(4) : -1;
    return new InstanceView(
        name,
        true,
        code == 1L,
        value == null || value.isEmpty() ? null : value,
        (Long) r.get(2),
        (Long) r.get(3),
        reserved,
        code == -1L,
        null);
  }

  private InstanceView parseReservation(List<Object> r) {
    long ceiling = (Long) r.get(0);
    return new InstanceView(name, true, true, null, -2, (Long) r.get(1), ceiling, false, null);
  }

  private static Throwable cause(Throwable e) {
    while ((e instanceof java.util.concurrent.CompletionException
            || e instanceof java.util.concurrent.ExecutionException)
        && e.getCause() != null) {
      e = e.getCause();
    }
    return e;
  }
}
