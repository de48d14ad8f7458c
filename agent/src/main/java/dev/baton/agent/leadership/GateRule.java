package dev.baton.agent.leadership;

import java.util.OptionalLong;

/**
 * When a pod's gates may be open, as one pure function of what its agent knows: the gates, the HTTP
 * answers and the tests all apply this, and nothing else decides it (docs/design.md, "The agent:
 * leadership, locks and a gate for any container").
 */
final class GateRule {

  private GateRule() {}

  /**
   * A time moved by {@code delta}, never below {@code floor}: how the gate model shifts a state's
   * times when it moves its clock.
   */
  static long shiftedTime(long time, long delta, long floor) {
    return Math.max(time + delta, floor);
  }

  /**
   * A hold of the group's gate key.
   *
   * @param value this hold's value alone, never reused
   * @param term the term it was taken for; a new term is a new hold
   * @param proven whether the gate may open on it: taken from a released or run-out key, or held
   *     for a whole ttl since it was taken from an absent one
   * @param openAfterNanos while not proven, when a renewal sent from then on proves it
   * @param untilNanos the agent's deadline: the last successful script's sending plus the ttl less
   *     a margin, by this process's monotonic clock
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

    Hold shifted(long delta, long floor) {
      return new Hold(
          key,
          value,
          term,
          proven,
          shiftedTime(openAfterNanos, delta, floor),
          shiftedTime(untilNanos, delta, floor),
          shiftedTime(lastSentNanos, delta, floor));
    }

    Hold renewed(long sentNanos, long ttlLessMarginNanos) {
      boolean nowProven = proven || sentNanos - openAfterNanos >= 0;
      return new Hold(
          key, value, term, nowProven, openAfterNanos, sentNanos + ttlLessMarginNanos, sentNanos);
    }
  }

  /**
   * What the agent knows.
   *
   * @param confirmed the pod is labeled leader and a read confirmed it ({@code BatonLeadership})
   * @param confirmedUntilNanos until when that confirmation holds
   * @param cut the pod, as last seen, is one the operator is certain to demote ({@link
   *     NotReadyCut})
   * @param withKey the agent has Redis, so a gate opens only on a proven, live hold
   * @param hold null when the agent holds no key
   */
  record Facts(
      boolean confirmed,
      long term,
      long confirmedUntilNanos,
      boolean cut,
      boolean closing,
      boolean withKey,
      Hold hold) {}

  /** Until when (a {@link System#nanoTime()}) the gates may stay open; empty: shut now. */
  static OptionalLong openUntil(Facts f, long nowNanos) {
    if (!f.confirmed() || f.cut() || f.closing()) {
      return OptionalLong.empty();
    }
    long until = f.confirmedUntilNanos();
    if (f.withKey()) {
      Hold h = f.hold();
      if (h == null || !h.proven() || h.term() != f.term()) {
        return OptionalLong.empty();
      }
      until = h.untilNanos() - until < 0 ? h.untilNanos() : until;
    }
    return nowNanos - until < 0 ? OptionalLong.of(until) : OptionalLong.empty();
  }
}
