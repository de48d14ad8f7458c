package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import dev.baton.operator.fencing.Reservations;
import java.util.List;
import java.util.Objects;

/**
 * What the operator remembers about one lock between reconciles. The highest token and the token
 * reservation are rebuilt from the status after a restart; a grant is re-adopted from Redis, where
 * its value names the pod. A value: the act step returns what it did, and the reconciler alone
 * keeps the state that follows (docs/design.md, "The flow").
 *
 * @param grant the grant this operator made (or adopted) and renews, or null
 * @param holder the holder last observed, or null when the lock was free
 * @param restored the holder in the status written before a restart: its acquiredAt is kept if it
 *     still holds
 * @param maxToken highest token seen for this lock: the floor for the next acquisition
 * @param reserved tokens are reserved in the status up to this one
 * @param block the last block of tokens reserved, which sizes the next
 */
record LockState(
    Grant grant,
    Holder holder,
    Shown restored,
    long maxToken,
    long reserved,
    Reservations.Block block) {

  /**
   * A grant this operator made (or adopted) and renews.
   *
   * @param renewedAtNanos when it was last taken or renewed (System.nanoTime)
   * @param view Redis as that renewal saw it: reused while the renewal is fresh
   */
  record Grant(
      String value, LockValues.PodRef pod, long token, long renewedAtNanos, LockView view) {}

  /** The holder as last reported: its value, and since when it holds (RFC 3339). */
  record Holder(String value, String acquiredAt) {}

  /** The holder as the status showed it before a restart (namespace/name or holder id). */
  record Shown(String holder, String acquiredAt) {}

  static final LockState EMPTY = new LockState(null, null, null, 0, 0, Reservations.FIRST_TOKENS);

  static LockState from(RedisLockStatus status) {
    if (status == null) {
      return EMPTY;
    }
    Shown restored =
        status.getHolder() == null || status.getHolder().isEmpty()
            ? null
            : new Shown(status.getHolder(), status.getAcquiredAt());
    return new LockState(
        null,
        null,
        restored,
        status.getFencingToken() == null ? 0 : status.getFencingToken(),
        status.getReservedToken() == null ? 0 : status.getReservedToken(),
        Reservations.FIRST_TOKENS);
  }

  String grantedValue() {
    return grant == null ? null : grant.value();
  }

  String holderValue() {
    return holder == null ? null : holder.value();
  }

  /** namespace/name of the pod the holder's value names, for mapping pod events to this lock. */
  String holderPod() {
    return holder == null
        ? null
        : LockValues.parsePod(holder.value()).map(p -> p.namespace() + "/" + p.name()).orElse(null);
  }

  /**
   * The state after the act step did {@code done}.
   *
   * @param nowNanos when it finished (System.nanoTime), the time of a grant it made or adopted
   * @param now the same in RFC 3339, since when a new holder holds
   */
  LockState record(List<LockOutcome> done, long nowNanos, String now) {
    LockState s = this;
    for (LockOutcome o : done) {
      s = s.record(o, nowNanos, now);
    }
    return s;
  }

  private LockState record(LockOutcome o, long nowNanos, String now) {
    if (o instanceof LockOutcome.Reserved r) {
      return new LockState(
          grant, holder, restored, maxToken, Math.max(reserved, r.ceiling()), r.block());
    }
    if (o instanceof LockOutcome.Renewed r) {
      if (!r.result().ok() || !r.value().equals(grantedValue())) {
        return this;
      }
      return withGrant(
          new Grant(r.value(), grant.pod(), grant.token(), r.startedNanos(), r.result().view()));
    }
    if (o instanceof LockOutcome.Kept k) {
      LockState s =
          k.adopted() ? withGrant(grantOf(k.value(), k.token(), nowNanos, k.view())) : this;
      return s.held(k.value(), k.token(), now);
    }
    if (o instanceof LockOutcome.Granted g) {
      return withGrant(grantOf(g.value(), g.token(), nowNanos, g.view()))
          .held(g.value(), g.token(), now);
    }
    if (o instanceof LockOutcome.NoneEligible) {
      return withGrant(null).held(null, 0, now);
    }
    if (o instanceof LockOutcome.StoodAside a) {
      return withGrant(null).held(a.holder(), a.token(), now);
    }
    if (o instanceof LockOutcome.Observed ob) {
      return withGrant(null).held(ob.holder(), ob.token(), now);
    }
    if (o instanceof LockOutcome.ForceReleased || o instanceof LockOutcome.Moved) {
      return withGrant(null);
    }
    return this; // reaped, reclaimed, refused, waited: nothing this state keeps changed
  }

  /** Redis did not answer: the view of the last renewal is no longer worth reusing. */
  LockState withoutView() {
    return grant == null
        ? this
        : withGrant(
            new Grant(grant.value(), grant.pod(), grant.token(), grant.renewedAtNanos(), null));
  }

  /** A reservation the status records, seen when the status was written. */
  LockState reservedUpTo(long ceiling) {
    return ceiling > reserved
        ? new LockState(grant, holder, restored, maxToken, ceiling, block)
        : this;
  }

  /** Who holds the lock now (null: free), and the highest token seen. */
  private LockState held(String value, long token, String now) {
    long max = Math.max(maxToken, token);
    if (Objects.equals(value, holderValue())) {
      return new LockState(grant, holder, restored, max, reserved, block);
    }
    boolean sameAsBefore =
        value != null
            && restored != null
            && LockValues.holder(value).equals(restored.holder())
            && token == maxToken;
    String since =
        value == null
            ? null
            : sameAsBefore && restored.acquiredAt() != null ? restored.acquiredAt() : now;
    return new LockState(
        grant, value == null ? null : new Holder(value, since), null, max, reserved, block);
  }

  private LockState withGrant(Grant g) {
    long max = g == null ? maxToken : Math.max(maxToken, g.token());
    return new LockState(g, holder, restored, max, reserved, block);
  }

  private static Grant grantOf(String value, long token, long nowNanos, LockView view) {
    return new Grant(value, LockValues.parsePod(value).orElseThrow(), token, nowNanos, view);
  }
}
