package dev.baton.agent.leadership;

import java.util.OptionalLong;

/**
 * Until when a pod's gates may be open, as one pure function of what its agent knows: the gates,
 * the HTTP answers and the tests all apply this, and nothing else decides it (docs/design.md, "The
 * agent: leadership, locks and a gate for any container").
 */
final class LeadRule {

  private LeadRule() {}

  /**
   * What the agent knows.
   *
   * @param mayLead the pod is labeled leader, a read confirmed it, for the newest term it was shown
   * @param confirmedUntilNanos until when that confirmation holds
   * @param cut the pod, as last seen, is one the operator is certain to demote ({@link
   *     CertainDemotion}), or is terminating
   * @param withKey the agent has Redis, so the gates open only on a proven, live hold
   * @param hold null when the agent holds no key
   */
  record Facts(
      boolean mayLead,
      long term,
      long confirmedUntilNanos,
      boolean cut,
      boolean closing,
      boolean withKey,
      Hold hold) {}

  /** Until when (a {@link System#nanoTime()}) the gates may stay open; empty: shut now. */
  static OptionalLong openUntil(Facts f, long nowNanos) {
    if (!f.mayLead() || f.cut() || f.closing()) {
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
