package dev.baton.operator.lease;

import dev.baton.client.LuaScript;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.redisson.api.RScript;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;

/** {@link LeaseStore} on one Redis (or Sentinel-managed master) through Redisson. */
public class RedisLeaseStore implements LeaseStore {

  static final LuaScript ACQUIRE = LuaScript.load("lease-acquire");
  static final LuaScript RENEW = LuaScript.load("lease-renew");
  static final LuaScript OBSERVE = LuaScript.load("lease-observe");
  static final LuaScript RELEASE = LuaScript.load("lease-release");
  static final LuaScript RENEW_MANY = LuaScript.load("lease-renew-many");
  static final LuaScript RESERVE = LuaScript.load("counter-reserve");

  private final RScript script;
  private final String target;
  private final ScriptTimer timer;
  private volatile boolean lastCallFailed;

  /**
   * @param target a description of the Redis for error messages, free of credentials
   */
  public RedisLeaseStore(RedissonClient redisson, String target, ScriptTimer timer) {
    this.script = redisson.getScript(StringCodec.INSTANCE);
    this.target = target;
    this.timer = timer;
  }

  @Override
  public Observation observe(LeaseKeys keys) {
    List<Object> r = run(OBSERVE, keys.both());
    String holder = (String) r.get(0);
    return new Observation(
        false, holder.isEmpty() ? null : holder, (Long) r.get(1), (Long) r.get(2));
  }

  @Override
  public Observation renew(LeaseKeys keys, String record, long ttlMillis) {
    List<Object> r = run(RENEW, List.of(keys.holder()), record, Long.toString(ttlMillis));
    String holder = (String) r.get(1);
    return new Observation(
        ((Long) r.get(0)) == 1L, holder.isEmpty() ? null : holder, (Long) r.get(2), -1);
  }

  @Override
  public CompletionStage<List<String>> renewAll(List<Renewal> renewals) {
    if (renewals.isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    List<Object> keys = new ArrayList<>(renewals.size());
    Object[] args = new Object[renewals.size() * 2];
    for (int i = 0; i < renewals.size(); i++) {
      Renewal r = renewals.get(i);
      keys.add(r.keys().holder());
      args[i] = r.record();
      args[renewals.size() + i] = Long.toString(r.ttlMillis());
    }
    long start = System.nanoTime();
    CompletionStage<List<Object>> call =
        script.evalAsync(
            (String) keys.get(0),
            RScript.Mode.READ_WRITE,
            RENEW_MANY.source(),
            RScript.ReturnType.LIST,
            keys,
            args);
    return call.handle(
        (answers, error) -> {
          timer.record(RENEW_MANY.name(), System.nanoTime() - start, error != null);
          if (error != null) {
            lastCallFailed = true;
            throw new RedisUnavailableException(
                "Redis "
                    + target
                    + " did not answer "
                    + RENEW_MANY.name()
                    + ": "
                    + RedisErrors.explain(error, List.of()));
          }
          lastCallFailed = false;
          List<String> out = new ArrayList<>(answers.size());
          for (Object a : answers) {
            out.add(a instanceof Long ? null : (String) a);
          }
          return out;
        });
  }

  @Override
  public Acquisition acquire(LeaseKeys keys, String expected, String recordPrefix, long ttlMillis) {
    List<Object> r =
        run(
            ACQUIRE,
            keys.all(),
            expected == null ? "" : expected,
            recordPrefix,
            Long.toString(ttlMillis));
    long code = (Long) r.get(0);
    String holder = (String) r.get(1);
    return new Acquisition(
        code == 1L,
        holder.isEmpty() ? null : holder,
        code == 1L ? (Long) r.get(2) : -1,
        code == -1L ? (Long) r.get(2) : -1);
  }

  @Override
  public long reserve(LeaseKeys keys, long floor, long ceiling) {
    List<Object> r =
        run(
            RESERVE,
            List.of(keys.term(), keys.reservation()),
            Long.toString(Math.max(0, floor)),
            Long.toString(ceiling));
    return (Long) r.get(0);
  }

  @Override
  public boolean release(LeaseKeys keys, String record) {
    List<Object> r = run(RELEASE, List.of(keys.holder()), record);
    return !r.isEmpty() && ((Long) r.get(0)) == 1L;
  }

  @SuppressWarnings("unchecked")
  private List<Object> run(LuaScript lua, List<Object> keys, Object... args) {
    Supplier<Object> call =
        () ->
            script.eval(
                (String) keys.get(0),
                RScript.Mode.READ_WRITE,
                lua.source(),
                RScript.ReturnType.LIST,
                keys,
                args);
    long start = System.nanoTime();
    try {
      Object result = call.get();
      timer.record(lua.name(), System.nanoTime() - start, false);
      lastCallFailed = false;
      return result instanceof List<?> list ? (List<Object>) list : List.of(result);
    } catch (RedisException e) {
      timer.record(lua.name(), System.nanoTime() - start, true);
      lastCallFailed = true;
      throw new RedisUnavailableException(
          "Redis "
              + target
              + " did not answer "
              + lua.name()
              + ": "
              + RedisErrors.explain(e, List.of()),
          null);
    }
  }

  boolean lastCallFailed() {
    return lastCallFailed;
  }

  /** Records each script call's duration and whether it failed; metrics supplies the real one. */
  public interface ScriptTimer {
    void record(String script, long nanos, boolean failed);

    ScriptTimer NONE = (script, nanos, failed) -> {};
  }
}
