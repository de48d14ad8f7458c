package dev.baton.client;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The store's half of fencing: remembers the highest term (or lock token) it has seen and refuses
 * anything below it, so a leader that lost its leadership, but has not noticed yet, cannot
 * overwrite what the new leader wrote. One per protected resource; thread-safe.
 */
public final class TermFence {

  private final AtomicLong highest = new AtomicLong();

  /**
   * Whether a write fenced with {@code term} may go ahead: true when no higher term was seen, and
   * {@code term} is then the highest seen.
   */
  public boolean admit(long term) {
    long seen = highest.accumulateAndGet(term, Math::max);
    return seen == term;
  }

  public long highest() {
    return highest.get();
  }
}
