package dev.baton.bench.locks;

import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * JMH benchmark: one acquire and one release of a free lock, per implementation. Each fork starts
 * its own redis-server processes; each thread locks its own key.
 */
@State(Scope.Benchmark)
public class LockBenchmarks {

  private static final AtomicInteger THREAD_KEYS = new AtomicInteger();

  @Param({"BATON_LOCK", "BATON_LEASE", "RAW_SET_NX", "REDISSON_RLOCK", "REDLOCK_3", "REDLOCK_5"})
  public String subject;

  RedisFleet fleet;

  @Setup(Level.Trial)
  public void startRedis() {
    fleet = RedisFleet.start(LockSubject.valueOf(subject).instances());
  }

  @TearDown(Level.Trial)
  public void stopRedis() {
    fleet.close();
  }

  /** The operation bound to one thread's key. */
  @State(Scope.Thread)
  public static class ThreadLock {
    LockSubject.LockOp op;

    @Setup(Level.Trial)
    public void open(LockBenchmarks bench) {
      op =
          LockSubject.valueOf(bench.subject)
              .open(
                  bench.fleet.clients(),
                  "bench/" + bench.subject.toLowerCase() + "-" + THREAD_KEYS.incrementAndGet());
    }
  }

  @Benchmark
  public void acquireRelease(ThreadLock lock) {
    lock.op.acquireRelease();
  }
}
