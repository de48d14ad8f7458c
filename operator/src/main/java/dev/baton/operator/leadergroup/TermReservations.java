package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.client.ElectionKeys;
import dev.baton.operator.kube.Conditions;
import dev.baton.operator.kube.StatusWriter;
import dev.baton.operator.lease.LeaseStore;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.function.LongConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reserves blocks of terms: first in the LeaderGroup's status (durable, guarded by resourceVersion
 * so the reservation never goes down), only then in Redis. On a Redis without a reservation of its
 * own, the counter is first raised to the reservation the status held before, above every term ever
 * issued (docs/design.md, "Terms and tokens never repeat").
 */
final class TermReservations {

  private static final Logger log = LoggerFactory.getLogger(TermReservations.class);

  /** Terms reserved per status write: a Redis that loses its data skips at most this many. */
  static final long BLOCK = 100;

  private final StatusWriter statusWriter;

  TermReservations(StatusWriter statusWriter) {
    this.statusWriter = statusWriter;
  }

  /**
   * @param reserved the highest reservation this operator knows it recorded
   * @param maxTerm the highest term it saw
   * @param counter the term counter Redis reported when it refused to issue the next term
   * @param recorded told the reservation the status records as soon as it does, before Redis is
   *     written: a Redis failure after that must not make the operator forget it
   */
  void reserve(
      LeaderGroup group,
      long reserved,
      long maxTerm,
      LeaseStore store,
      ElectionKeys keys,
      List<Pod> members,
      long counter,
      LongConsumer recorded) {
    long known = Math.max(reserved, maxTerm);
    for (Pod p : members) {
      known = Math.max(known, Membership.term(p));
    }
    LeaderGroupStatus raise = new LeaderGroupStatus();
    raise.setReservedTerm(Math.max(known, counter) + BLOCK);
    StatusWriter.Written<LeaderGroupStatus> written =
        statusWriter.write(group, raise, TermReservations::raise);
    if (written == null) {
      return; // the group is gone
    }
    long ceiling = reserved(written.after());
    recorded.accept(ceiling);
    store.reserve(keys, Math.max(known, reserved(written.before())), ceiling);
    log.info(
        "LeaderGroup {}/{}: reserved terms up to {}",
        group.getMetadata().getNamespace(),
        group.getMetadata().getName(),
        ceiling);
  }

  /**
   * The highest reservation this operator knows was recorded: a Redis whose own is lower refuses to
   * issue (it may be a replaced master that has not learned it yet), so the operator reserves.
   */
  static long known(LeaderGroup group, long reserved) {
    return Math.max(reserved, reserved(group.getStatus()));
  }

  static long reserved(LeaderGroupStatus s) {
    return s == null || s.getReservedTerm() == null ? 0 : s.getReservedTerm();
  }

  /** The status on the server with its reservation raised to the one asked for, nothing else. */
  private static LeaderGroupStatus raise(LeaderGroupStatus current, LeaderGroupStatus asked) {
    LeaderGroupStatus out = Serialization.clone(current);
    out.setReservedTerm(Math.max(reserved(current), reserved(asked)));
    return out;
  }

  /** The status to write, with a reservation never below the one on the server. */
  static LeaderGroupStatus keep(LeaderGroupStatus current, LeaderGroupStatus next) {
    if (reserved(current) > reserved(next)) {
      next.setReservedTerm(current.getReservedTerm());
    }
    next.setConditions(Conditions.sinceAsOnServer(current.getConditions(), next.getConditions()));
    return next;
  }
}
