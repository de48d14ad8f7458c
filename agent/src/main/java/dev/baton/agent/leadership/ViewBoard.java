package dev.baton.agent.leadership;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The leadership loop's last answer ({@link AgentView}), for the threads that ask (HTTP, probes,
 * metrics, relays): written by the loop alone, read by anyone. An answer of {@code leader: true} is
 * good only until the gates' deadline, so a reader past it gets {@code leader: false} even before
 * the loop has run again, as a paused process's first answer must be.
 */
final class ViewBoard {

  private final List<Consumer<LeadershipView>> watchers = new CopyOnWriteArrayList<>();
  private final Object changed = new Object();
  private volatile AgentView view;
  private volatile long leaderUntilNanos;
  private final LongSupplier clock;

  /**
   * @param clock {@link System#nanoTime()}, or a test's
   */
  ViewBoard(AgentView initial, LongSupplier clock) {
    this.view = initial;
    this.clock = clock;
  }

  /** On the loop: a new answer, good until {@code untilNanos} when it says leader. */
  void publish(AgentView v, long untilNanos) {
    leaderUntilNanos = untilNanos;
    AgentView before = view;
    if (v.equals(before)) {
      return;
    }
    synchronized (changed) {
      view = v;
      changed.notifyAll();
    }
    if (!v.leadership().equals(before.leadership())) {
      for (Consumer<LeadershipView> w : watchers) {
        w.accept(v.leadership());
      }
    }
  }

  /** The answer now: never {@code leader: true} past the deadline it was given with. */
  LeadershipView now() {
    return agent().leadership();
  }

  /** All the loop published, its answer as of now. */
  AgentView agent() {
    AgentView v = view;
    if (v.leadership().leader() && clock.getAsLong() - leaderUntilNanos >= 0) {
      return v.withLeadership(v.leadership().notLeading());
    }
    return v;
  }

  /** Waits until {@code leader} is no longer the answer, or {@code wait} is over. */
  LeadershipView awaitLeaderOtherThan(boolean leader, Duration wait) throws InterruptedException {
    long deadline = clock.getAsLong() + wait.toNanos();
    synchronized (changed) {
      while (true) {
        LeadershipView v = now();
        long left = deadline - clock.getAsLong();
        if (v.leader() != leader || left <= 0) {
          return v;
        }
        if (v.leader()) {
          left = Math.min(left, Math.max(1, leaderUntilNanos - clock.getAsLong()));
        }
        TimeUnit.NANOSECONDS.timedWait(changed, left);
      }
    }
  }

  Runnable watch(Consumer<LeadershipView> watcher) {
    watchers.add(watcher);
    return () -> watchers.remove(watcher);
  }
}
