package dev.baton.operator.lease;

import dev.baton.client.BoundedRedisCall;
import dev.baton.client.ElectionKeys;
import dev.baton.client.LuaScript;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.redisson.api.BatchOptions;
import org.redisson.api.RBatch;
import org.redisson.api.RScript;
import org.redisson.api.RScriptAsync;
import org.redisson.api.RedissonClient;
import org.redisson.client.RedisException;
import org.redisson.client.codec.StringCodec;

/**
 * {@link LeaseStore} on one Redis, a Sentinel-managed master or a Redis Cluster, through Redisson.
 * Every script touches the keys of one election, which share a hash slot; only the batched renewal
 * spans elections, and on a cluster it is split per slot (see {@link #renewAll}).
 *
 * <p>Every call is bounded by our own clock as well as by Redisson's timeouts ({@link
 * BoundedRedisCall}): one call that never completes would otherwise hold a reconcile thread, or the
 * renewer's in-flight mark, for good.
 */
public class RedisLeaseStore implements LeaseStore {

  static final LuaScript ACQUIRE = LuaScript.load("lease-acquire");
  static final LuaScript RENEW = LuaScript.load("lease-renew");
  static final LuaScript OBSERVE = LuaScript.load("lease-observe");
  static final LuaScript RELEASE = LuaScript.load("lease-release");
  static final LuaScript RENEW_MANY = LuaScript.load("lease-renew-many");
  static final LuaScript RESERVE = LuaScript.load("counter-reserve");

  private final RedissonClient redisson;
  private final RScript script;
  private final String target;
  private final boolean cluster;
  private final ScriptTimer timer;
  private final Duration callBound;
  private volatile boolean lastCallFailed;

  /**
   * @param target a description of the Redis for error messages, free of credentials
   */
  public RedisLeaseStore(RedissonClient redisson, String target, ScriptTimer timer) {
    this(redisson, target, false, timer, Duration.ofSeconds(10));
  }

  /**
   * @param cluster a Redis Cluster: a script may only touch keys of one slot
   * @param callBound the longest a call may take, retries included, before it counts as not
   *     answered; longer than Redisson's own bound, which it only backs up
   */
  public RedisLeaseStore(
      RedissonClient redisson,
      String target,
      boolean cluster,
      ScriptTimer timer,
      Duration callBound) {
    this.redisson = redisson;
    this.script = redisson.getScript(StringCodec.INSTANCE);
    this.target = target;
    this.cluster = cluster;
    this.timer = timer;
    this.callBound = callBound;
  }

  @Override
  public Observation observe(ElectionKeys keys) {
    List<Object> r = run(OBSERVE, holderAndTerm(keys));
    String holder = (String) r.get(0);
    return new Observation(
        false, holder.isEmpty() ? null : holder, (Long) r.get(1), (Long) r.get(2));
  }

  @Override
  public Observation renew(ElectionKeys keys, String record, long ttlMillis) {
    List<Object> r = run(RENEW, List.of(keys.holder()), record, Long.toString(ttlMillis));
    String holder = (String) r.get(1);
    return new Observation(
        ((Long) r.get(0)) == 1L, holder.isEmpty() ? null : holder, (Long) r.get(2), -1);
  }

  /**
   * One script call renews many leases. On one Redis that is one call for all of them. On a cluster
   * a script may only touch one slot's keys, so the renewals are grouped by slot, one call per
   * slot, and all calls go in one pipeline per master: one round trip per master per tick, however
   * many slots the elections spread over.
   */
  @Override
  public CompletionStage<List<String>> renewAll(List<Renewal> renewals) {
    if (renewals.isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    long start = System.nanoTime();
    CompletionStage<List<String>> answers =
        (cluster ? renewPerSlot(renewals) : renewTogether(renewals, script))
            .toCompletableFuture()
            .orTimeout(callBound.toMillis(), TimeUnit.MILLISECONDS);
    return answers.handle(
        (out, error) -> {
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
          return out;
        });
  }

  private static CompletionStage<List<String>> renewTogether(
      List<Renewal> renewals, RScriptAsync script) {
    List<Object> keys = new ArrayList<>(renewals.size());
    Object[] args = new Object[renewals.size() * 2];
    for (int i = 0; i < renewals.size(); i++) {
      Renewal r = renewals.get(i);
      keys.add(r.keys().holder());
      args[i] = r.record();
      args[renewals.size() + i] = Long.toString(r.ttlMillis());
    }
    CompletionStage<List<Object>> call =
        script.evalAsync(
            (String) keys.get(0),
            RScript.Mode.READ_WRITE,
            RENEW_MANY.source(),
            RScript.ReturnType.LIST,
            keys,
            args);
    return call.thenApply(
        answers -> {
          List<String> out = new ArrayList<>(answers.size());
          for (Object a : answers) {
            out.add(a instanceof Long ? null : (String) a);
          }
          return out;
        });
  }

  private CompletionStage<List<String>> renewPerSlot(List<Renewal> renewals) {
    Map<Integer, List<Integer>> bySlot = new LinkedHashMap<>();
    for (int i = 0; i < renewals.size(); i++) {
      bySlot
          .computeIfAbsent(HashSlot.of(renewals.get(i).keys().holder()), s -> new ArrayList<>())
          .add(i);
    }
    RBatch batch = redisson.createBatch(BatchOptions.defaults());
    RScriptAsync batched = batch.getScript(StringCodec.INSTANCE);
    Map<List<Integer>, CompletionStage<List<String>>> calls = new LinkedHashMap<>();
    for (List<Integer> indexes : bySlot.values()) {
      calls.put(indexes, renewTogether(indexes.stream().map(renewals::get).toList(), batched));
    }
    return batch
        .executeAsync()
        .thenApply(
            done -> {
              String[] out = new String[renewals.size()];
              calls.forEach(
                  (indexes, call) -> {
                    List<String> answers = call.toCompletableFuture().join();
                    for (int k = 0; k < indexes.size(); k++) {
                      out[indexes.get(k)] = answers.get(k);
                    }
                  });
              return java.util.Arrays.asList(out);
            });
  }

  @Override
  public Acquisition acquire(
      ElectionKeys keys, String expected, String recordPrefix, long ttlMillis, long reserved) {
    List<Object> r =
        reserved < 0
            ? run(
                ACQUIRE,
                allOf(keys),
                expected == null ? "" : expected,
                recordPrefix,
                Long.toString(ttlMillis),
                "0")
            : run(
                ACQUIRE,
                allOf(keys),
                expected == null ? "" : expected,
                recordPrefix,
                Long.toString(ttlMillis),
                Long.toString(reserved),
                "exact");
    long code = (Long) r.get(0);
    String holder = (String) r.get(1);
    return new Acquisition(
        code == 1L,
        holder.isEmpty() ? null : holder,
        code == 1L ? (Long) r.get(2) : -1,
        code == -1L ? (Long) r.get(2) : -1);
  }

  @Override
  public long reserve(ElectionKeys keys, long floor, long ceiling) {
    List<Object> r =
        run(
            RESERVE,
            List.of(keys.term(), keys.reservation(), keys.reservedReplid()),
            Long.toString(Math.max(0, floor)),
            Long.toString(ceiling));
    return (Long) r.get(0);
  }

  @Override
  public boolean release(ElectionKeys keys, String record) {
    List<Object> r = run(RELEASE, List.of(keys.holder(), keys.handover()), record);
    return !r.isEmpty() && ((Long) r.get(0)) == 1L;
  }

  @SuppressWarnings("unchecked")
  private List<Object> run(LuaScript lua, List<Object> keys, Object... args) {
    long start = System.nanoTime();
    try {
      Object result =
          BoundedRedisCall.await(
              script.evalAsync(
                  (String) keys.get(0),
                  RScript.Mode.READ_WRITE,
                  lua.source(),
                  RScript.ReturnType.LIST,
                  keys,
                  args),
              callBound);
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

  private static List<Object> holderAndTerm(ElectionKeys keys) {
    return List.of(keys.holder(), keys.term());
  }

  /** Every key of the election, in the order lease-acquire.lua reads its KEYS. */
  private static List<Object> allOf(ElectionKeys keys) {
    return List.of(
        keys.holder(), keys.term(), keys.reservation(), keys.handover(), keys.reservedReplid());
  }
}
