package dev.baton.client;

/**
 * What a pod hears about its leadership, on {@link BatonLeadership}'s own thread, in order: a
 * {@code granted} is always followed by a {@code revoked} before the next {@code granted}.
 */
public interface LeadershipListener {

  /**
   * This pod leads now. Pass {@code term} to whatever the work writes to: it is strictly greater
   * than the term of every earlier leadership of this election, so a store that refuses a term
   * below the highest it saw ({@link TermFence}) refuses an old leader's late writes.
   */
  void granted(long term);

  /**
   * This pod no longer leads, or can no longer confirm that it does: stop the work now.
   *
   * @param reason why, for logs
   */
  void revoked(String reason);
}
