package dev.baton.agent.threads;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every thread the agent starts is created, named and closed here, and nowhere else. The agent's
 * threads:
 *
 * <ul>
 *   <li>{@code baton-agent-leadership}: the leadership loop, one thread, with its 10 ms timer; it
 *       alone holds the leadership state;
 *   <li>{@code baton-agent-hold-calls}: the hold key's calls to Redis, one at a time, and the
 *       retries of the {@code baton:gates} subscription;
 *   <li>{@code baton-agent-gate-<port>-<n>}: a gate's event loops (two per core, at most eight per
 *       gate), which alone touch the connections they carry; the first also accepts, and reads
 *       relays' preambles on a leader-only gate;
 *   <li>{@code baton-agent-relay-<port>}: a follower's connections while they look for the leader's
 *       gate, one each, bounded;
 *   <li>{@code baton-agent-relay-<port>-loop-<n>}: the two event loops that carry a follower's
 *       relayed connections once the leader's gate took them;
 *   <li>{@code baton-agent-http}: the local HTTP API, bounded;
 *   <li>{@code baton-agent-probes}: the probes' port, one event loop;
 *   <li>{@code baton-agent-trim}: gives the C heap's free pages back, once a minute.
 * </ul>
 *
 * <p>Besides these, libraries start their own: the pod source's ({@code baton-leadership}, {@code
 * baton-leadership-pod}, baton-client's), the Redis client's (Redisson's and Netty's, two each),
 * the JDK's HTTP client's, and the JVM's shutdown hook ({@code baton-agent-shutdown}).
 *
 * <p>An {@link Error} on any of these threads (an OutOfMemoryError, say) ends the process: a loop
 * that dies while the process lives could leave a listening socket open that nothing serves, or a
 * gate that no longer hears its deadline. The kubelet restarts the container; the gates stay shut
 * meanwhile, since nothing listens.
 */
public final class AgentThreads implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AgentThreads.class);

  /** The exit status of a process ended by an Error on one of its threads. */
  public static final int ERROR_EXIT = 70;

  private final List<ExecutorService> executors = new ArrayList<>();
  private final Runnable halt;

  public AgentThreads() {
    this(() -> Runtime.getRuntime().halt(ERROR_EXIT));
  }

  /**
   * @param halt what an Error does once logged (tests record it instead of ending their JVM)
   */
  public AgentThreads(Runnable halt) {
    this.halt = halt;
  }

  /** One thread that runs tasks in order and on a schedule. */
  public synchronized ScheduledExecutorService single(String name) {
    ScheduledThreadPoolExecutor e =
        new ScheduledThreadPoolExecutor(1, factory(name, 0)) {
          @Override
          public void execute(Runnable task) {
            try {
              super.execute(task);
            } catch (RejectedExecutionException ignored) {
              // closed meanwhile
            }
          }

          @Override
          protected void afterExecute(Runnable r, Throwable t) {
            failed(Thread.currentThread().getName(), ended(r, t));
          }
        };
    e.setRemoveOnCancelPolicy(true);
    executors.add(e);
    return e;
  }

  /**
   * At most {@code max} threads with stacks of {@code stackBytes}, none kept idle for more than ten
   * seconds; a task offered while all are busy is refused ({@link RejectedExecutionException}),
   * never queued.
   */
  public synchronized ExecutorService bounded(String name, int max, long stackBytes) {
    ThreadPoolExecutor e =
        new ThreadPoolExecutor(
            0, max, 10, TimeUnit.SECONDS, new SynchronousQueue<>(), factory(name, stackBytes)) {
          @Override
          protected void afterExecute(Runnable r, Throwable t) {
            failed(Thread.currentThread().getName(), ended(r, t));
          }
        };
    executors.add(e);
    return e;
  }

  /** A thread of its own for {@code body}, not started. */
  public Thread thread(String name, Runnable body) {
    return factory(name, 0).newThread(body);
  }

  private ThreadFactory factory(String name, long stackBytes) {
    AtomicInteger n = new AtomicInteger();
    return r -> {
      String threadName = n.getAndIncrement() == 0 ? name : name + "-" + n.get();
      Thread t = new Thread(null, r, threadName, stackBytes);
      t.setDaemon(true);
      t.setUncaughtExceptionHandler((thread, e) -> failed(thread.getName(), e));
      return t;
    };
  }

  /** What a submitted or scheduled task threw, which its executor keeps in its future. */
  private static Throwable ended(Runnable r, Throwable t) {
    if (t == null && r instanceof java.util.concurrent.Future<?> f && f.isDone()) {
      try {
        f.get();
      } catch (java.util.concurrent.ExecutionException e) {
        return e.getCause();
      } catch (InterruptedException | java.util.concurrent.CancellationException e) {
        return null;
      }
    }
    return t;
  }

  private void failed(String thread, Throwable t) {
    if (t instanceof Error) {
      log.error("thread {} failed ({}): the agent stops, to be restarted", thread, t.toString());
      halt.run();
    } else if (t != null) {
      log.error("thread {} failed", thread, t);
    }
  }

  /** Stops every executor made here, the last made first. */
  @Override
  public synchronized void close() {
    for (int i = executors.size() - 1; i >= 0; i--) {
      executors.get(i).shutdownNow();
    }
  }
}
