package dev.baton.agent.leadership;

import dev.baton.client.PodFacts;

/** What a source tells the leadership loop: one input at a time, in the order posted. */
sealed interface Input
    permits Input.Belief,
        Input.PodSeen,
        Input.Tick,
        Input.KeyMessage,
        Input.Closing,
        Input.Answered,
        Input.FactsRead {

  /**
   * The pod's leadership as its pod source last confirmed it (labeled leader, confirmed by a read
   * sent before {@code confirmedUntilNanos} less the ttl), or that it no longer does.
   */
  record Belief(boolean leader, long term, long confirmedUntilNanos) implements Input {}

  /** The pod as a read or a watch event showed it, the newer of the two. */
  record PodSeen(PodFacts facts) implements Input {}

  /** The 10 ms timer: deadlines pass, calls come due. */
  record Tick() implements Input {}

  /** A message on {@code baton:gates}: {@code key} was taken, proven or let go. */
  record KeyMessage(String key) implements Input {}

  /** The agent stops: gates closed, the hold let go. */
  record Closing() implements Input {}

  /** A script's answer; {@code answer} null when Redis did not answer in time. */
  record Answered(HoldCall call, long sentNanos, long answeredNanos, HoldKey.Answer answer)
      implements Input {}

  /**
   * A read of the key's node's facts has ended; {@code facts} null when Redis did not answer. The
   * loop reports them; the decision does nothing with them.
   */
  record FactsRead(String key, long sentNanos, long answeredNanos, HoldKey.RedisFacts facts)
      implements Input {}
}
