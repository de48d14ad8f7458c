package dev.baton.agent.leadership;

/**
 * Something that may be used by one pod of a group at a time, told when it may and when it must
 * stop: the gates, and the observers of tests and benchmarks. Called on the leadership's loop, one
 * call at a time.
 */
public interface Exclusive {

  /**
   * Until when, by {@link System#nanoTime()}, it may be used: told before {@link #opened} and again
   * on every renewal. Past it, nothing may be served even if {@link #closed} has not come yet (the
   * agent was paused, say): the deadline is checked by whoever serves.
   */
  default void openUntil(long untilNanos) {}

  /** This pod alone leads now, with {@code term}. */
  void opened(long term);

  /** This pod must stop at once: by the time this returns, nothing may be served any longer. */
  void closed(String reason);
}
