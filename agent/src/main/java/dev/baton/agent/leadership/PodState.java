package dev.baton.agent.leadership;

import dev.baton.client.BatonNames;
import dev.baton.client.PodFacts;
import java.util.Map;

/**
 * The pod as its source last showed it: the pod itself (a read or a watch event), whether a read
 * confirmed it leader and until when, the newest term it was ever shown, and whether its demotion
 * is certain.
 *
 * @param facts the pod as last seen; null before the first read answered
 * @param confirmed labeled leader, confirmed by a read (BatonLeadership's belief)
 * @param term the term of that belief (of the last one, once not confirmed)
 * @param confirmedUntilNanos until when the belief holds
 * @param newestTerm the highest term this pod was ever shown: nothing opens for a lower one
 * @param cut its demotion is certain ({@link CertainDemotion})
 * @param warnedNoGroup the missing group annotation was told once
 */
record PodState(
    PodFacts facts,
    boolean confirmed,
    long term,
    long confirmedUntilNanos,
    long newestTerm,
    boolean cut,
    boolean warnedNoGroup) {

  static PodState initial(long now) {
    return new PodState(null, false, 0, now, 0, false, false);
  }

  /** Whether {@code b} grants leadership anew: a first confirmation, or a new term. */
  boolean grantedBy(Input.Belief b) {
    return b.leader() && (!confirmed || term != b.term());
  }

  PodState believed(Input.Belief b) {
    if (!b.leader()) {
      return new PodState(facts, false, term, confirmedUntilNanos, newestTerm, cut, warnedNoGroup);
    }
    return new PodState(
        facts,
        true,
        b.term(),
        b.confirmedUntilNanos(),
        Math.max(newestTerm, b.term()),
        cut,
        warnedNoGroup);
  }

  /**
   * The pod as {@code seen}. A deleted pod's agent runs on for a while (a relay carries connections
   * to the next leader as it stops): it keeps following the group it was in, never as a leader.
   */
  PodState seen(PodFacts seen, String roleLabel) {
    PodFacts f =
        seen != null && !seen.exists() && facts != null
            ? new PodFacts(false, facts.uid(), Map.of(), facts.annotations(), false, facts.ip())
            : seen;
    return new PodState(
        f,
        confirmed,
        term,
        confirmedUntilNanos,
        Math.max(newestTerm, termShown(seen, roleLabel)),
        CertainDemotion.after(cut, seen, roleLabel),
        warnedNoGroup);
  }

  PodState warned() {
    return new PodState(facts, confirmed, term, confirmedUntilNanos, newestTerm, cut, true);
  }

  /** Whether the pod may lead by what it was shown: confirmed, for its newest term. */
  boolean mayLead() {
    return confirmed && term >= newestTerm;
  }

  /** The pod's group, from its {@code baton.dev/leader-group} annotation; null while unknown. */
  String group() {
    String g = facts == null ? null : facts.annotations().get(BatonNames.GROUP_ANNOTATION);
    return g == null || g.isBlank() ? null : g;
  }

  /** The pod's own IP, as its source last showed it. */
  String ip() {
    return facts == null ? null : facts.ip();
  }

  private static long termShown(PodFacts seen, String roleLabel) {
    if (seen == null || !BatonNames.LEADER.equals(seen.labels().get(roleLabel))) {
      return 0;
    }
    try {
      return Long.parseLong(seen.annotations().getOrDefault(BatonNames.TERM_ANNOTATION, "0"));
    } catch (NumberFormatException e) {
      return 0;
    }
  }
}
