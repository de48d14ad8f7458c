package dev.baton.agent.leadership;

/** What the leadership loop carries out, in the order the decision gave them. */
sealed interface Effect permits Effect.Open, Effect.Close, Effect.Log, HoldCall {

  /**
   * The gates may forward until {@code untilNanos}, with {@code term}: {@code opens} when they were
   * shut, else a later deadline for open gates.
   */
  record Open(long untilNanos, long term, boolean opens) implements Effect {}

  /** The gates close: every connection reset before the next effect runs. */
  record Close(String reason) implements Effect {}

  record Log(boolean warn, String message) implements Effect {

    /** A line about the hold key {@code key}: "the hold key {@code key}{@code rest}". */
    static Log ofKey(boolean warn, String key, String rest) {
      return new Log(warn, "the hold key " + key + rest);
    }
  }
}
