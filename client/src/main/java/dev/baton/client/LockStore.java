package dev.baton.client;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;
import org.redisson.api.RedissonClient;

/**
 * Locks over one Redis or a Redlock quorum of independent masters. Each method makes one attempt,
 * calls every instance in parallel and waits for each at most the per-instance timeout, so a dead
 * instance costs that timeout once, not once per instance.
 *
 * <p>Taking a lock on N instances: the acquire script runs everywhere; with a majority taken within
 * the validity time (ttl minus elapsed minus clock drift) the token is the highest counter among
 * the majority (each already raised past its own counter and the floor), and the instances whose
 * counter is below it are raised to it ("fenced") before the caller is told. Any later majority
 * overlaps one instance that knows the token, so tokens strictly increase while a majority keeps
 * its data; the floor (the highest token the caller has seen) covers the rest. A failed attempt
 * deletes its value wherever it may have landed. With one instance the fence step never runs: one
 * round trip.
 */
public final class LockStore {

  /** Redlock's allowance for clocks running at different rates: 1% of the ttl, plus 2 ms. */
  public static final double CLOCK_DRIFT_FACTOR = 0.01;

  public static final Duration SINGLE_TIMEOUT = Duration.ofSeconds(2);
  public static final Duration REDLOCK_INSTANCE_TIMEOUT = Duration.ofMillis(200);

  private final List<LockInstance> instances;
  private final int quorum;
  private final long timeoutNanos;

  /**
   * @param instances one Redis, or an odd number of at least three independent masters
   * @param instanceTimeout how long to wait for each instance's answer
   */
  public LockStore(List<LockInstance> instances, Duration instanceTimeout) {
    if (instances.isEmpty()) {
      throw new IllegalArgumentException("a lock needs at least one Redis");
    }
    this.instances = List.copyOf(instances);
    this.quorum = instances.size() / 2 + 1;
    this.timeoutNanos = instanceTimeout.toNanos();
  }

  /** Locks in one Redis, through the application's Redisson client. */
  public static LockStore single(RedissonClient redisson) {
    return new LockStore(List.of(new LockInstance("redis", redisson)), SINGLE_TIMEOUT);
  }

  /** A Redlock quorum; the names (in iteration order) appear in views and messages. */
  public static LockStore redlock(Map<String, RedissonClient> instances) {
    List<LockInstance> list = new ArrayList<>();
    instances.forEach((name, redisson) -> list.add(new LockInstance(name, redisson)));
    return new LockStore(list, REDLOCK_INSTANCE_TIMEOUT);
  }

  public int quorum() {
    return quorum;
  }

  public List<String> names() {
    return instances.stream().map(LockInstance::name).toList();
  }

  /** One attempt to take the lock with {@code value}; the token is above {@code floor}. */
  public LockResult acquire(LockKeys keys, String value, Duration ttl, long floor) {
    return acquire(keys, value, ttl, floor, 0);
  }

  /**
   * As {@link #acquire(LockKeys, String, Duration, long)}, by a caller that knows the highest token
   * reservation recorded durably: an instance whose own is lower refuses (unreserved), since it may
   * be a replaced master answering before it learns so (see lock-acquire.lua).
   */
  public LockResult acquire(LockKeys keys, String value, Duration ttl, long floor, long reserved) {
    long start = System.nanoTime();
    long ttlMillis = ttl.toMillis();
    List<InstanceView> views = call(i -> i.acquire(keys, value, ttlMillis, floor, reserved));
    long taken = views.stream().filter(InstanceView::ok).count();
    if (taken >= quorum) {
      long token =
          Math.max(
              floor + 1,
              views.stream()
                  .filter(InstanceView::ok)
                  .mapToLong(InstanceView::counter)
                  .max()
                  .orElse(0));
      List<Integer> behind = new ArrayList<>();
      for (int i = 0; i < views.size(); i++) {
        if (views.get(i).ok() && views.get(i).counter() < token) {
          behind.add(i);
        }
      }
      if (!behind.isEmpty()) {
        replace(views, behind, i -> i.fence(keys, value, token));
      }
      long atToken = views.stream().filter(v -> v.holds(value) && v.counter() >= token).count();
      long validity = validity(ttlMillis, start);
      if (atToken >= quorum && validity > 0) {
        return new LockResult(true, token, validity, new LockView(views, quorum));
      }
    }
    // Undo: wherever the value may have landed, late answers included, delete it.
    List<Integer> undo = new ArrayList<>();
    for (int i = 0; i < views.size(); i++) {
      if (views.get(i).holds(value) || !views.get(i).reachable()) {
        undo.add(i);
      }
    }
    if (!undo.isEmpty()) {
      List<InstanceView> before = List.copyOf(views);
      replace(views, undo, i -> i.release(keys, value));
      for (int i : undo) {
        if (!views.get(i).reachable()) {
          views.set(i, before.get(i));
        }
      }
    }
    return new LockResult(false, 0, 0, new LockView(views, quorum));
  }

  /**
   * Extends the caller's hold on every instance, taking back instances that lost it without anyone
   * else acquiring in between (see lock-renew.lua); ok when a majority holds it afterwards.
   */
  public LockResult renew(LockKeys keys, String value, Duration ttl, long token) {
    long start = System.nanoTime();
    long ttlMillis = ttl.toMillis();
    List<InstanceView> views = call(i -> i.renew(keys, value, ttlMillis, token));
    long renewed = views.stream().filter(InstanceView::ok).count();
    long validity = validity(ttlMillis, start);
    boolean ok = renewed >= quorum && validity > 0;
    return new LockResult(ok, ok ? token : 0, ok ? validity : 0, new LockView(views, quorum));
  }

  /** Deletes {@code value} wherever it is the lock's value (compare-and-delete); ok if anywhere. */
  public LockResult release(LockKeys keys, String value) {
    List<InstanceView> views = call(i -> i.release(keys, value));
    boolean any = views.stream().anyMatch(InstanceView::ok);
    return new LockResult(any, 0, 0, new LockView(views, quorum));
  }

  /** Reads the lock everywhere: value, expiry, token counter and the reservation in force. */
  public LockView observe(LockKeys keys) {
    return new LockView(call(i -> i.observe(keys)), quorum);
  }

  /**
   * Reserves tokens up to {@code ceiling} on every instance, after the caller recorded the ceiling
   * durably; an instance without a reservation of its own first has its counter raised to {@code
   * floor}. Each view's {@code reserved} is the ceiling in force there afterwards (-1 on an
   * instance that did not answer). Only the operator calls this: see {@code counter-reserve.lua}.
   */
  public LockView reserve(LockKeys keys, long floor, long ceiling) {
    return new LockView(call(i -> i.reserve(keys, floor, ceiling)), quorum);
  }

  /**
   * How long a hold of {@code ttlMillis} (from Redis's point of view) is safe to use, counted from
   * {@code startNanos}, when the call began: Redlock's validity time.
   */
  static long validity(long ttlMillis, long startNanos) {
    long elapsed = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    long drift = Math.round(ttlMillis * CLOCK_DRIFT_FACTOR) + 2;
    return ttlMillis - elapsed - drift;
  }

  private List<InstanceView> call(Function<LockInstance, CompletableFuture<InstanceView>> op) {
    List<Integer> all = new ArrayList<>();
    List<InstanceView> views = new ArrayList<>();
    for (int i = 0; i < instances.size(); i++) {
      all.add(i);
      views.add(null);
    }
    replace(views, all, op);
    return views;
  }

  /** Runs {@code op} on the given instances in parallel and puts their answers in place. */
  private void replace(
      List<InstanceView> views,
      List<Integer> which,
      Function<LockInstance, CompletableFuture<InstanceView>> op) {
    List<CompletableFuture<InstanceView>> futures = new ArrayList<>();
    for (int i : which) {
      futures.add(op.apply(instances.get(i)));
    }
    long deadline = System.nanoTime() + timeoutNanos;
    for (int k = 0; k < which.size(); k++) {
      int i = which.get(k);
      views.set(i, await(futures.get(k), instances.get(i).name(), deadline));
    }
  }

  private InstanceView await(CompletableFuture<InstanceView> f, String name, long deadline) {
    try {
      return f.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
    } catch (TimeoutException e) {
      return InstanceView.unreachable(
          name, "no answer within " + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms");
    } catch (ExecutionException e) {
      return InstanceView.unreachable(name, e.getCause().getClass().getSimpleName());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return InstanceView.unreachable(name, "interrupted");
    }
  }
}
