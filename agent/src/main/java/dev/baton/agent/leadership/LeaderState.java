package dev.baton.agent.leadership;

/**
 * Which pod of the group leads, as this agent sees it: itself while its gates are open, else the
 * holder of a proven hold its last read of the key found (a follower's answers, a relay's target).
 * Every field null when none is known.
 */
record LeaderState(String pod, Long term, String ip) {

  static final LeaderState NONE = new LeaderState(null, null, null);

  /** Who the hold key names as leader, from a read of it: a proven hold only. */
  static LeaderState fromKey(HoldKey.Answer x) {
    HoldValue v = HoldValue.parse(x.found());
    if (x.code() == 1 && v != null && v.state() == HoldValue.HELD) {
      return new LeaderState(HoldValue.podOf(v.hold()), v.term(), HoldValue.addressOf(v.hold()));
    }
    return NONE;
  }

  /** No longer {@code self}, whose gates just closed. */
  LeaderState without(String self) {
    return self.equals(pod) ? NONE : this;
  }
}
