package dev.baton.agent.leadership;

/**
 * This agent's hold of its group's hold key, as its answers showed it.
 *
 * @param value the hold's name, written by one take (or re-take) only
 * @param term the term it was taken for; a new term is a new hold
 * @param proven whether the gates may open on it: taken from a released or run-out key, or held for
 *     a whole ttl since it was taken from an absent one
 * @param openAfterNanos while not proven, when a renewal sent from then on proves it
 * @param untilNanos the agent's deadline: the last successful script's sending plus the ttl less a
 *     margin, by this process's monotonic clock
 * @param lastSentNanos when the last successful script was sent
 */
record Hold(
    String key,
    String value,
    long term,
    boolean proven,
    long openAfterNanos,
    long untilNanos,
    long lastSentNanos) {

  /**
   * A hold taken by a script sent at {@code sent} and answered {@code at}: its deadline runs from
   * the sending, and, unproven, a renewal a whole ttl after the answer proves it.
   */
  static Hold taken(
      LeadershipConfig c, String key, String value, long term, boolean proven, long sent, long at) {
    long ttl = c.ttlNanos();
    return new Hold(key, value, term, proven, at + ttl, sent + ttl - c.marginNanos(), sent);
  }

  /**
   * The same hold under the name a re-take wrote, after the key was lost while the gates were open
   * on it: proven, since those gates were, and due by the same deadline until the re-take's renewal
   * moves it.
   */
  Hold retakenAs(String newValue) {
    return new Hold(key, newValue, term, true, openAfterNanos, untilNanos, lastSentNanos);
  }

  /** Renewed by a script sent at {@code sentNanos}: proven too if sent late enough. */
  Hold renewed(long sentNanos, long ttlLessMarginNanos) {
    boolean nowProven = proven || sentNanos - openAfterNanos >= 0;
    return new Hold(
        key, value, term, nowProven, openAfterNanos, sentNanos + ttlLessMarginNanos, sentNanos);
  }
}
