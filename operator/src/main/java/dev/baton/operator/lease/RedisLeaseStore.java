package dev.baton.operator.lease;

import java.util.List;
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
  public Acquisition acquire(
      LeaseKeys keys, String expected, String recordPrefix, long ttlMillis, long termFloor) {
    List<Object> r =
        run(
            ACQUIRE,
            keys.both(),
            expected == null ? "" : expected,
            recordPrefix,
            Long.toString(ttlMillis),
            Long.toString(Math.max(0, termFloor)));
    boolean acquired = ((Long) r.get(0)) == 1L;
    return new Acquisition(acquired, (String) r.get(1), acquired ? (Long) r.get(2) : -1);
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
    try {
      Object result = timer.time(lua.name(), call);
      lastCallFailed = false;
      return result instanceof List<?> list ? (List<Object>) list : List.of(result);
    } catch (RedisException e) {
      lastCallFailed = true;
      throw new RedisUnavailableException(
          "Redis " + target + " did not answer " + lua.name() + ": " + e.getClass().getSimpleName(),
          null);
    }
  }

  boolean lastCallFailed() {
    return lastCallFailed;
  }

  /** Measures script calls; the metrics package supplies the real one. */
  public interface ScriptTimer {
    Object time(String script, Supplier<Object> call);

    ScriptTimer NONE = (script, call) -> call.get();
  }
}
