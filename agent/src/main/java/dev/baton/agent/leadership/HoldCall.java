package dev.baton.agent.leadership;

/**
 * A call to Redis on the group's hold key, answered back as {@link Input.Answered} ({@link
 * Input.FactsRead} for a read of facts): one take, renewal or read of the holder at a time;
 * let-goes and reads of facts beside them. Each is sent once: the client does not resend it.
 */
sealed interface HoldCall extends Effect
    permits HoldCall.Take, HoldCall.Renew, HoldCall.LetGo, HoldCall.ReadHolder, HoldCall.ReadFacts {

  String key();

  /**
   * @param hold this take's hold name, given to no other call
   * @param expected the value watched unchanged for a ttl, or "" (hold-take.lua)
   */
  record Take(String key, String hold, long term, String expected) implements HoldCall {}

  /**
   * @param retakeAs the hold name an absent key is taken again under: this renewal's own, so that a
   *     re-take never writes a value some taker may have watched before; null: never
   * @param retakeBeforeNanos an absent key may be taken again only by a renewal sent before this
   *     (the gates' deadline, while they are open); {@link Long#MIN_VALUE}: never
   * @param prove this renewal proves a hold taken from an absent key
   */
  record Renew(Hold hold, String retakeAs, long retakeBeforeNanos, boolean prove)
      implements HoldCall {

    @Override
    public String key() {
      return hold.key();
    }

    /**
     * Whether this renewal, sent at {@code sentNanos}, may take an absent key again: only before
     * the deadline the decision gave it. Checked where the call is sent, as a gate checks its own
     * deadline, since a call may wait in the queue past the moment the decision was taken.
     */
    boolean mayRetakeIfSentAt(long sentNanos) {
      return retakeAs != null
          && retakeBeforeNanos != Long.MIN_VALUE
          && sentNanos - retakeBeforeNanos < 0;
    }
  }

  /** Marks a proven hold released: only ever after its gates closed. */
  record LetGo(Hold hold) implements HoldCall {

    @Override
    public String key() {
      return hold.key();
    }
  }

  record ReadHolder(String key) implements HoldCall {}

  record ReadFacts(String key) implements HoldCall {}
}
