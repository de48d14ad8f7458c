package dev.baton.agent.leadership;

/**
 * Something that may be used by one pod of a group at a time, told when it may and when it must
 * stop: the gates, and the HTTP view. Called under the leadership's lock, one call at a time.
 */
public interface Exclusive {

  /** This pod alone leads now, with {@code term}. */
  void opened(long term);

  /** This pod must stop at once: by the time this returns, nothing may be served any longer. */
  void closed(String reason);
}
