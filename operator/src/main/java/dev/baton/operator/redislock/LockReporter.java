package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import dev.baton.operator.fencing.Reservations;
import dev.baton.operator.kube.ConditionType;
import dev.baton.operator.kube.Conditions;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.kube.EventRecorder;
import dev.baton.operator.kube.ResourceReporter;
import dev.baton.operator.kube.StatusWriter;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.metrics.Liveness;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BinaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The report step of a RedisLock reconcile, called once at its end with what the reconcile found
 * and did: conditions, Events, metrics and the status (holder, token, expiry, Redlock instances).
 * Every change goes through a {@link Report}, which starts from the status as it was, so the status
 * is written only when something a reader cares about changed. What it said before (an outage, a
 * problem, no candidates, a dead holder) it remembers itself, so that it says each once.
 */
final class LockReporter extends ResourceReporter<RedisLock, RedisLockStatus> {

  private static final Logger log = LoggerFactory.getLogger(LockReporter.class);

  /** How one reconcile ended, as the reconciler tells it. */
  sealed interface Ending {}

  /** A spec or Secret the operator cannot use: looked at again after {@code retry}. */
  record Invalid(String reason, String message, Duration retry) implements Ending {}

  /** The read found no majority of instances answering: nothing was planned. */
  record Unreachable(LockSettings settings, LockView view) implements Ending {}

  /**
   * A plan was carried out, to its end or not.
   *
   * @param read Redis as the reconcile read it, at {@code readAtNanos} (System.nanoTime)
   * @param dead the values of gone pods still holding in the world the plan was made from
   */
  record Carried(
      LockSettings settings,
      LockView read,
      long readAtNanos,
      LockActuator.Outcome outcome,
      List<String> dead)
      implements Ending {}

  /**
   * What the reconcile leaves to JOSDK: when to look again, or null when an API or Redis write
   * failed and the reconciler throws it for the framework's retry; the reservation the status on
   * the server records after the write (0 when nothing was written).
   */
  record Reported(UpdateControl<RedisLock> control, long reserved) {}

  /** What was said of a lock before, so each is said once. */
  private record Said(
      boolean redisDown, String problem, boolean noCandidates, DeadHolder deadHolder) {}

  private static final Said NOTHING = new Said(false, null, false, DeadHolder.NONE);

  /**
   * The holder value whose pod is gone yet still holds the lock, and since when (epoch ms). A dead
   * pod's lock is normally reaped at once, so a time that grows means reaping fails.
   */
  record DeadHolder(String value, long sinceMillis) {
    static final DeadHolder NONE = new DeadHolder(null, 0);

    /**
     * After a look at {@code holder} (null: free), which is {@code dead} or not, at {@code now}.
     */
    DeadHolder next(String holder, boolean dead, long now) {
      if (holder == null || !dead) {
        return NONE;
      }
      return holder.equals(value) ? this : new DeadHolder(holder, now);
    }

    /** How long the holder has been known dead while still holding: 0 for none. */
    long millis(long now) {
      return value == null ? 0 : now - sinceMillis;
    }
  }

  private final Map<ResourceID, Said> said = new ConcurrentHashMap<>();

  /** One reconcile's report, built as {@link #report} goes. */
  static final class Report {
    final RedisLock lock;
    final LockState before;
    final LockState state;
    final RedisLockStatus old;
    final Conditions conditions;
    Said said;
    RedisLockStatus status;
    Duration next;

    /** When the view being reported was read (System.nanoTime), for the remaining time. */
    long viewAtNanos = System.nanoTime();

    private Report(RedisLock lock, LockState before, LockState state, Said said, Clock clock) {
      this.lock = lock;
      this.before = before;
      this.state = state;
      this.said = said;
      this.old = lock.getStatus() == null ? new RedisLockStatus() : lock.getStatus();
      this.conditions =
          new Conditions(old.getConditions(), lock.getMetadata().getGeneration(), clock);
    }

    String ns() {
      return lock.getMetadata().getNamespace();
    }

    String name() {
      return lock.getMetadata().getName();
    }
  }

  LockReporter(
      EventRecorder events,
      BatonMetrics metrics,
      Liveness liveness,
      StatusWriter statusWriter,
      Clock clock) {
    super(
        events,
        metrics,
        liveness,
        statusWriter,
        clock,
        keep(Reservations.tokens(statusWriter)),
        Reservations.tokens(statusWriter)::reserved);
  }

  /** The status to write: the reservation never below the server's, conditions' times kept. */
  private static BinaryOperator<RedisLockStatus> keep(
      Reservations<RedisLock, RedisLockStatus> tokens) {
    return (current, next) -> {
      tokens.keepReservation(current, next);
      next.setConditions(Conditions.sinceAsOnServer(current.getConditions(), next.getConditions()));
      return next;
    };
  }

  /**
   * Reports one reconcile: the state it started from ({@code before}), the one it leaves, and how
   * it ended.
   */
  Reported report(RedisLock lock, LockState before, LockState after, Ending ending) {
    Report r = compose(lock, before, after, ending);
    if (r == null) {
      return new Reported(null, 0);
    }
    return new Reported(next(r.next), write(lock, r.status, r.next));
  }

  /**
   * Conditions, Events and metrics of one reconcile, and the status to write; null when the plan
   * failed, which writes no status (the retry reports again).
   */
  Report compose(RedisLock lock, LockState before, LockState after, Ending ending) {
    ResourceID id = ResourceID.fromResource(lock);
    Report r = new Report(lock, before, after, said.getOrDefault(id, NOTHING), clock);
    try {
      if (ending instanceof Invalid i) {
        invalid(r, i.reason(), i.message(), i.retry());
        return r;
      }
      r.conditions.set(ConditionType.Invalid, false, "Valid", "spec is valid");
      if (ending instanceof Unreachable u) {
        failStatic(r, u.settings(), u.view());
        return r;
      }
      Carried c = (Carried) ending;
      r.viewAtNanos = c.readAtNanos();
      redisAnswered(r, c.settings(), c.read());
      for (LockOutcome o : c.outcome().done()) {
        if (o instanceof LockOutcome.Last last) {
          finished(r, last);
        } else {
          acted(r, o);
        }
      }
      if (c.outcome().lostQuorum() != null) {
        failStatic(r, c.settings(), c.outcome().lostQuorum());
        return r;
      }
      if (c.outcome().failure() != null) {
        return null;
      }
      holderLiveness(r, c.settings(), c.dead());
      LockOutcome.Last last = c.outcome().last();
      done(r, c.settings(), c.outcome().view(), last.next());
      return r;
    } finally {
      said.put(id, r.said);
    }
  }

  @Override
  public void forget(RedisLock lock) {
    said.remove(ResourceID.fromResource(lock));
    super.forget(lock);
  }

  /** What a step that changed Redis did: releases and reaps are counted, logged and Events. */
  private void acted(Report r, LockOutcome outcome) {
    if (outcome instanceof LockOutcome.ForceReleased f) {
      List<String> released = new ArrayList<>();
      for (LockOutcome.Released v : f.released()) {
        count(r, BatonMetrics.LOCK_RELEASES);
        released.add(LockValues.holder(v.value()) + " (token " + v.token() + ")");
      }
      String message =
          released.isEmpty()
              ? "force-release requested; the lock was free"
              : "force-released the lock of " + String.join(", ", released) + " on request";
      info(r, message);
      event(r, EventReason.ForceReleased, message);
    } else if (outcome instanceof LockOutcome.Reaped reaped) {
      for (LockOutcome.Released v : reaped.reaped()) {
        String message =
            "reaped the lock of "
                + LockValues.holder(v.value())
                + " (pod gone) without waiting for its ttl; token "
                + v.token();
        info(r, message);
        event(r, EventReason.LockReaped, message);
        count(r, BatonMetrics.LOCK_REAPS);
      }
    }
  }

  /** What the last step of a reconcile did: Ready, and the Events it makes. */
  private void finished(Report r, LockOutcome.Last last) {
    if (last instanceof LockOutcome.Kept k) {
      if (k.adopted()) {
        info(r, "adopted the grant to " + k.pod() + " with token " + k.token());
      }
      noCandidates(r, false);
      ready(r, true, "Granted", k.pod() + " holds the lock with token " + k.token());
    } else if (last instanceof LockOutcome.Granted g) {
      granted(r, g);
    } else if (last instanceof LockOutcome.Refused) {
      count(r, BatonMetrics.LOCK_CONTENTION);
      contended(r);
    } else if (last instanceof LockOutcome.NoneEligible n) {
      String message = "no ready pod matches spec.holderSelector; nobody holds the lock";
      if (!r.said.noCandidates()) {
        noCandidates(r, true);
        event(
            r,
            EventReason.NoCandidates,
            n.movedFrom() == null
                ? message
                : message + " (" + n.movedFrom() + " " + n.because() + ")");
      }
      ready(r, false, "NoCandidates", message);
    } else if (last instanceof LockOutcome.StoodAside a) {
      String holder = LockValues.holder(a.holder());
      if (a.lostFrom() != null) {
        event(
            r,
            EventReason.LockLost,
            "the lock granted to " + a.lostFrom() + " is held by " + holder + " now");
      }
      ready(
          r,
          true,
          "HeldElsewhere",
          holder + " holds the lock (not granted by this operator); it is granted again once free");
    } else if (last instanceof LockOutcome.Observed o) {
      observed(r, o);
    } else if (last instanceof LockOutcome.Waited) {
      contended(r);
    }
  }

  private void noCandidates(Report r, boolean said) {
    Said s = r.said;
    r.said = new Said(s.redisDown(), s.problem(), said, s.deadHolder());
  }

  private void granted(Report r, LockOutcome.Granted g) {
    noCandidates(r, false);
    String held = g.pod() + " holds the lock with token " + g.token();
    String message =
        g.movedFrom() == null
            ? held
            : String.format(
                "moved from %s (%s) to %s with token %s",
                g.movedFrom(), g.because(), g.pod(), g.token());
    info(r, message);
    event(r, g.movedFrom() == null ? EventReason.LockAcquired : EventReason.LockMoved, message);
    count(r, BatonMetrics.LOCK_ACQUISITIONS);
    if (g.movedFrom() != null) {
      count(r, BatonMetrics.LOCK_RELEASES);
    }
    ready(r, true, "Granted", held);
  }

  /** No holder selector: whoever holds the lock is reported, a new holder counted once. */
  private void observed(Report r, LockOutcome.Observed o) {
    String before = r.before.holderValue();
    if (o.holder() == null) {
      ready(r, true, "Free", "nobody holds the lock");
      return;
    }
    String message = LockValues.holder(o.holder()) + " holds the lock with token " + o.token();
    if (!o.holder().equals(before)) {
      event(r, EventReason.LockAcquired, message);
      count(r, BatonMetrics.LOCK_ACQUISITIONS);
    }
    ready(r, true, "Held", message);
  }

  private void event(Report r, EventReason reason, String message) {
    events.record(r.lock, reason, message);
  }

  private void count(Report r, String meter) {
    metrics.lock(meter, r.ns(), r.name());
  }

  private void info(Report r, String message) {
    log.info("RedisLock {}/{}: {}", r.ns(), r.name(), message);
  }

  /** A spec or Secret the operator cannot use: reported once, retried after {@code retry}. */
  private void invalid(Report r, String reason, String message, Duration retry) {
    Said said = r.said;
    if (!message.equals(said.problem())) {
      r.said = new Said(said.redisDown(), message, said.noCandidates(), said.deadHolder());
      log.warn("RedisLock {}/{}: {}", r.ns(), r.name(), message);
      events.record(r.lock, EventReason.InvalidSpec, message);
    }
    r.conditions
        .set(ConditionType.Invalid, true, reason, message)
        .set(ConditionType.Ready, false, reason, message)
        .keep(ConditionType.QuorumLost);
    if (reason.startsWith("Secret") || reason.equals("InvalidSecret")) {
      r.conditions.set(ConditionType.RedisAvailable, false, reason, message);
    } else {
      r.conditions.keep(ConditionType.RedisAvailable);
    }
    RedisLockStatus s = LockStatuses.asBefore(r.lock, r.old);
    s.setConditions(r.conditions.build());
    finish(r, s, retry);
  }

  /** A majority answered: RedisAvailable (and QuorumLost) say who did. */
  private void redisAnswered(Report r, LockSettings settings, LockView view) {
    Said said = r.said;
    r.said = new Said(false, null, said.noCandidates(), said.deadHolder());
    if (said.redisDown()) {
      events.record(r.lock, EventReason.RedisRecovered, "Redis is reachable again");
    }
    List<String> down = view.unreachableDescriptions();
    if (down.isEmpty()) {
      r.conditions.set(
          ConditionType.RedisAvailable,
          true,
          "Reachable",
          settings.isRedlock()
              ? "all " + view.instances().size() + " instances answered"
              : "Redis answered");
    } else {
      r.conditions.set(
          ConditionType.RedisAvailable,
          false,
          "Unreachable",
          "unreachable: "
              + String.join(", ", down)
              + "; a majority of "
              + view.instances().size()
              + " still answers");
    }
    if (settings.isRedlock()) {
      r.conditions.set(
          ConditionType.QuorumLost,
          false,
          "QuorumReachable",
          view.reachable()
              + " of "
              + view.instances().size()
              + " instances answered, "
              + view.quorum()
              + " needed");
    }
  }

  /** No majority answered: labels are kept as they are, nothing is granted (fail static). */
  private void failStatic(Report r, LockSettings settings, LockView view) {
    String what =
        settings.isRedlock()
            ? "only "
                + view.reachable()
                + " of "
                + view.instances().size()
                + " Redlock instances answered, "
                + view.quorum()
                + " needed"
            : "Redis did not answer";
    String message =
        what
            + " (unreachable: "
            + String.join(", ", view.unreachableDescriptions())
            + "); the lock can be neither taken nor renewed,"
            + " labels are kept as they are";
    Said said = r.said;
    if (!said.redisDown()) {
      r.said = new Said(true, said.problem(), said.noCandidates(), said.deadHolder());
      log.warn("RedisLock {}/{}: {}", r.ns(), r.name(), message);
      events.record(
          r.lock,
          settings.isRedlock() ? EventReason.QuorumLost : EventReason.RedisUnavailable,
          message);
    }
    r.conditions.set(ConditionType.RedisAvailable, false, "Unreachable", message);
    if (settings.isRedlock()) {
      r.conditions.set(ConditionType.QuorumLost, true, "MajorityUnreachable", message);
    }
    r.conditions.set(
        ConditionType.Ready,
        false,
        settings.isRedlock() ? "QuorumLost" : "RedisUnavailable",
        message);
    RedisLockStatus s = LockStatuses.base(r.lock, r.state);
    s.setHolder(r.old.getHolder() == null ? "" : r.old.getHolder());
    s.setAcquiredAt(r.old.getAcquiredAt());
    s.setExpiresAt(r.old.getExpiresAt());
    s.setInstances(LockStatuses.instances(settings, view, null));
    s.setConditions(r.conditions.build());
    finish(r, s, settings.interval());
  }

  private void ready(Report r, boolean ready, String reason, String message) {
    r.conditions.set(ConditionType.Ready, ready, reason, message);
  }

  /** A Ready condition set before is kept; with none yet, it says the lock is being taken. */
  private void contended(Report r) {
    r.conditions.keep(ConditionType.Ready);
    if (Conditions.find(r.old.getConditions(), ConditionType.Ready).isEmpty()) {
      r.conditions.set(ConditionType.Ready, false, "Contended", "the lock is being taken");
    }
  }

  /**
   * The metrics an alert on a dead holder needs: the lock's ttl, and how long its holder has been
   * known dead (its pod gone) while still holding, which stays 0 while reaping works.
   */
  private void holderLiveness(Report r, LockSettings settings, List<String> deadValues) {
    String holder = r.state.holderValue();
    Said said = r.said;
    long now = System.currentTimeMillis();
    DeadHolder dead =
        said.deadHolder().next(holder, holder != null && deadValues.contains(holder), now);
    r.said = new Said(said.redisDown(), said.problem(), said.noCandidates(), dead);
    metrics.lockHolder(
        r.lock.getMetadata().getNamespace(),
        r.lock.getMetadata().getName(),
        settings.ttl(),
        Duration.ofMillis(dead.millis(now)));
  }

  private void done(Report r, LockSettings settings, LockView view, Duration next) {
    RedisLockStatus s = LockStatuses.base(r.lock, r.state);
    String holder = r.state.holderValue();
    s.setHolder(holder == null ? "" : LockValues.holder(holder));
    s.setAcquiredAt(holder == null ? null : r.state.holder().acquiredAt());
    s.setExpiresAt(
        holder == null
            ? null
            : LockStatuses.expiresAt(clock.instant(), r.old, r.viewAtNanos, view, holder));
    s.setInstances(LockStatuses.instances(settings, view, holder));
    s.setConditions(r.conditions.build());
    finish(r, s, next);
  }

  @Override
  protected void forgetSeries(String namespace, String name) {
    metrics.forgetLock(namespace, name);
  }

  private void finish(Report r, RedisLockStatus next, Duration reschedule) {
    r.status = next;
    r.next = reschedule;
  }

  private String now() {
    return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
