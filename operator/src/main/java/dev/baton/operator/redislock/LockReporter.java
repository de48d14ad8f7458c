package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.ConditionType;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import dev.baton.operator.fencing.Reservations;
import dev.baton.operator.kube.Conditions;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.kube.ReportedKind;
import dev.baton.operator.kube.Reporting;
import dev.baton.operator.kube.ResourceReporter;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.tenancy.Refusal;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The report step of a RedisLock reconcile, called once at its end with what the reconcile found
 * and did: conditions, Events, metrics and the status (holder, token, expiry, Redlock instances).
 * Every change goes through a {@link LockReport}, which starts from the status as it was, so the
 * status is written only when something a reader cares about changed. What it said before (an
 * outage, a problem, no candidates, a dead holder) it remembers itself, so that it says each once.
 */
final class LockReporter extends ResourceReporter<RedisLock, RedisLockStatus, LockReport.Told> {

  private static final Logger log = LoggerFactory.getLogger(LockReporter.class);

  /**
   * What the reconcile leaves to JOSDK: when to look again, or null when an API or Redis write
   * failed and the reconciler throws it for the framework's retry; the reservation the status on
   * the server records after the write (0 when nothing was written).
   */
  record Reported(UpdateControl<RedisLock> control, long reserved) {}

  /**
   * @param tokens the reservations the act step makes, whose status fields every write keeps
   */
  LockReporter(Reporting reporting, Reservations<RedisLock, RedisLockStatus> tokens) {
    super(
        reporting,
        new ReportedKind<>(
            tokens::keepReservation,
            tokens::reserved,
            RedisLockStatus::getConditions,
            RedisLockStatus::setConditions,
            LockReport.Told.NOTHING));
  }

  /**
   * Reports one reconcile: the state it started from ({@code before}), the one it leaves, and how
   * it ended.
   */
  Reported report(RedisLock lock, LockState before, LockState after, LockEnding ending) {
    LockReport r = compose(lock, before, after, ending);
    if (r == null) {
      return new Reported(null, 0);
    }
    return new Reported(next(r.next), write(lock, r.status, r.next));
  }

  /**
   * Conditions, Events and metrics of one reconcile, and the status to write; null when the plan
   * failed, which writes no status (the retry reports again).
   */
  LockReport compose(RedisLock lock, LockState before, LockState after, LockEnding ending) {
    LockReport r = new LockReport(lock, before, after, recall(lock), clock);
    try {
      if (ending instanceof LockEnding.Invalid i) {
        invalid(r, i.reason(), i.message(), i.retry());
        return r;
      }
      r.conditions.set(ConditionType.Invalid, false, "Valid", "spec is valid");
      if (ending instanceof LockEnding.Unreachable u) {
        failStatic(r, u.settings(), u.view());
        return r;
      }
      LockEnding.Carried c = (LockEnding.Carried) ending;
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
      remember(lock, r.said);
    }
  }

  /** What a step that changed Redis did: releases and reaps are counted, logged and Events. */
  private void acted(LockReport r, LockOutcome outcome) {
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
  private void finished(LockReport r, LockOutcome.Last last) {
    if (last instanceof LockOutcome.Kept k) {
      if (k.adopted()) {
        info(r, "adopted the grant to " + k.pod() + " with token " + k.token());
      }
      r.said = r.said.own(r.said.own().noCandidates(false));
      ready(r, true, "Granted", k.pod() + " holds the lock with token " + k.token());
    } else if (last instanceof LockOutcome.Granted g) {
      granted(r, g);
    } else if (last instanceof LockOutcome.Refused) {
      count(r, BatonMetrics.LOCK_CONTENTION);
      contended(r);
    } else if (last instanceof LockOutcome.NoneEligible n) {
      String message = "no ready pod matches spec.holderSelector; nobody holds the lock";
      if (!r.said.own().noCandidates()) {
        r.said = r.said.own(r.said.own().noCandidates(true));
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

  private void granted(LockReport r, LockOutcome.Granted g) {
    r.said = r.said.own(r.said.own().noCandidates(false));
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
  private void observed(LockReport r, LockOutcome.Observed o) {
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

  private void event(LockReport r, EventReason reason, String message) {
    events.record(r.lock, reason, message);
  }

  private void count(LockReport r, String meter) {
    metrics.lock(meter, r.ns(), r.name());
  }

  private void info(LockReport r, String message) {
    log.info("RedisLock {}/{}: {}", r.ns(), r.name(), message);
  }

  /** A spec or Secret the operator cannot use: reported once, retried after {@code retry}. */
  private void invalid(LockReport r, String reason, String message, Duration retry) {
    EventReason told =
        Refusal.KEY_IN_USE.equals(reason) ? EventReason.KeyInUse : EventReason.InvalidSpec;
    r.said = problemOnce(r.lock, r.said, told, message);
    r.conditions
        .set(ConditionType.Invalid, true, reason, message)
        .set(ConditionType.Ready, false, reason, message);
    if (reason.startsWith("Secret") || reason.equals("InvalidSecret")) {
      r.conditions.set(ConditionType.RedisAvailable, false, reason, message);
    }
    RedisLockStatus s = LockStatuses.asBefore(r.lock, r.old);
    s.setConditions(r.conditions.build());
    finish(r, s, retry);
  }

  /** A majority answered: RedisAvailable (and QuorumLost) say who did. */
  private void redisAnswered(LockReport r, LockSettings settings, LockView view) {
    r.said = redisBack(r.lock, r.said);
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
    } else {
      r.conditions.drop(ConditionType.QuorumLost); // Redlock was turned off
    }
  }

  /** No majority answered: labels are kept as they are, nothing is granted (fail static). */
  private void failStatic(LockReport r, LockSettings settings, LockView view) {
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
    r.said =
        redisLost(
            r.lock,
            r.said,
            settings.isRedlock() ? EventReason.QuorumLost : EventReason.RedisUnavailable,
            message,
            message);
    r.conditions.set(ConditionType.RedisAvailable, false, "Unreachable", message);
    if (settings.isRedlock()) {
      r.conditions.set(ConditionType.QuorumLost, true, "MajorityUnreachable", message);
    } else {
      r.conditions.drop(ConditionType.QuorumLost);
    }
    r.conditions.set(
        ConditionType.Ready,
        false,
        settings.isRedlock() ? "QuorumLost" : "RedisUnavailable",
        message);
    RedisLockStatus s = LockStatuses.holderAsBefore(r.lock, r.state, r.old, settings, view);
    s.setConditions(r.conditions.build());
    finish(r, s, settings.interval());
  }

  private void ready(LockReport r, boolean ready, String reason, String message) {
    r.conditions.set(ConditionType.Ready, ready, reason, message);
  }

  /** A Ready condition set before is kept; with none yet, it says the lock is being taken. */
  private void contended(LockReport r) {
    if (Conditions.find(r.old.getConditions(), ConditionType.Ready).isEmpty()) {
      r.conditions.set(ConditionType.Ready, false, "Contended", "the lock is being taken");
    }
  }

  /**
   * The metrics an alert on a dead holder needs: the lock's ttl, and how long its holder has been
   * known dead (its pod gone) while still holding, which stays 0 while reaping works.
   */
  private void holderLiveness(LockReport r, LockSettings settings, List<String> deadValues) {
    String holder = r.state.holderValue();
    long now = clock.millis();
    LockReport.Told told = r.said.own();
    LockReport.DeadHolder dead =
        told.deadHolder().next(holder, holder != null && deadValues.contains(holder), now);
    r.said = r.said.own(told.deadHolder(dead));
    metrics.lockHolder(
        r.lock.getMetadata().getNamespace(),
        r.lock.getMetadata().getName(),
        settings.ttl(),
        Duration.ofMillis(dead.millis(now)));
  }

  private void done(LockReport r, LockSettings settings, LockView view, Duration next) {
    RedisLockStatus s =
        LockStatuses.held(r.lock, r.state, r.old, settings, view, r.viewAtNanos, clock.instant());
    s.setConditions(r.conditions.build());
    finish(r, s, next);
  }

  @Override
  protected void forgetSeries(String namespace, String name) {
    metrics.forgetLock(namespace, name);
  }

  private void finish(LockReport r, RedisLockStatus next, Duration reschedule) {
    metrics.lockConditions(r.ns(), r.name(), next.getConditions());
    r.status = next;
    r.next = reschedule;
  }
}
