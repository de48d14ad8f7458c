package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import dev.baton.operator.kube.ConditionType;
import dev.baton.operator.kube.Conditions;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.kube.EventRecorder;
import dev.baton.operator.kube.ResourceReporter;
import dev.baton.operator.kube.StatusWriter;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.metrics.Liveness;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The report step of a RedisLock reconcile: conditions, Events, metrics and the status (holder,
 * token, expiry, Redlock instances). Every change goes through a {@link Report}, which starts from
 * the status as it was, so the status is written only when something a reader cares about changed.
 */
final class LockReporter extends ResourceReporter<RedisLock, RedisLockStatus> {

  private static final Logger log = LoggerFactory.getLogger(LockReporter.class);

  /** One reconcile's report, built as the reconcile goes. */
  final class Report {
    final RedisLock lock;
    final LockState state;
    final RedisLockStatus old;
    final Conditions conditions;

    /** When the view being reported was read (System.nanoTime), for the remaining time. */
    long viewAtNanos = System.nanoTime();

    private Report(RedisLock lock, LockState state) {
      this.lock = lock;
      this.state = state;
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
        TokenReservations::keep,
        TokenReservations::reserved);
  }

  Report begin(RedisLock lock, LockState state) {
    return new Report(lock, state);
  }

  /** What a step that changed Redis did: releases and reaps are counted, logged and Events. */
  void acted(Report r, LockOutcome outcome) {
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

  /** What the last step of a reconcile did: who holds the lock, Ready, and the Events it makes. */
  void finished(Report r, LockOutcome.Last last) {
    LockState state = r.state;
    if (last instanceof LockOutcome.Kept k) {
      if (k.adopted()) {
        info(r, "adopted the grant to " + k.pod() + " with token " + k.token());
      }
      holder(r, k.value(), k.token());
      state.noCandidatesReported = false;
      ready(r, true, "Granted", k.pod() + " holds the lock with token " + k.token());
    } else if (last instanceof LockOutcome.Granted g) {
      granted(r, g);
    } else if (last instanceof LockOutcome.Refused) {
      count(r, BatonMetrics.LOCK_CONTENTION);
      contended(r);
    } else if (last instanceof LockOutcome.NoneEligible n) {
      holder(r, null, 0);
      String message = "no ready pod matches spec.holderSelector; nobody holds the lock";
      if (!state.noCandidatesReported) {
        state.noCandidatesReported = true;
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
      holder(r, a.holder(), a.token());
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

  private void granted(Report r, LockOutcome.Granted g) {
    holder(r, g.value(), g.token());
    r.state.noCandidatesReported = false;
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
    String before = r.state.holder == null ? null : r.state.holder.value();
    holder(r, o.holder(), o.token());
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
  UpdateControl<RedisLock> invalid(Report r, String reason, String message, Duration retry) {
    if (!message.equals(r.state.lastProblem)) {
      r.state.lastProblem = message;
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
    return finish(r, s, retry);
  }

  void valid(Report r) {
    r.conditions.set(ConditionType.Invalid, false, "Valid", "spec is valid");
  }

  /** A majority answered: RedisAvailable (and QuorumLost) say who did. */
  void redisAnswered(Report r, LockSettings settings, LockView view) {
    r.viewAtNanos = System.nanoTime();
    r.state.lastProblem = null;
    if (r.state.redisDown) {
      r.state.redisDown = false;
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
  UpdateControl<RedisLock> failStatic(Report r, LockSettings settings, LockView view) {
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
    if (!r.state.redisDown) {
      r.state.redisDown = true;
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
    r.state.forgetView();
    RedisLockStatus s = LockStatuses.base(r.lock, r.state);
    s.setHolder(r.old.getHolder() == null ? "" : r.old.getHolder());
    s.setAcquiredAt(r.old.getAcquiredAt());
    s.setExpiresAt(r.old.getExpiresAt());
    s.setInstances(LockStatuses.instances(settings, view, null));
    s.setConditions(r.conditions.build());
    return finish(r, s, settings.interval());
  }

  /** Who holds the lock now (null: free), and the highest token seen. */
  private void holder(Report r, String value, long token) {
    LockState state = r.state;
    String current = state.holder == null ? null : state.holder.value();
    if (!Objects.equals(value, current)) {
      boolean sameAsBefore =
          value != null
              && state.restored != null
              && LockValues.holder(value).equals(state.restored.holder())
              && token == state.maxToken;
      String since =
          value == null
              ? null
              : sameAsBefore && state.restored.acquiredAt() != null
                  ? state.restored.acquiredAt()
                  : now();
      state.holder = value == null ? null : new LockState.Holder(value, since);
      state.restored = null;
      state.holderPod =
          LockValues.parsePod(value).map(p -> p.namespace() + "/" + p.name()).orElse(null);
    }
    state.maxToken = Math.max(state.maxToken, token);
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
  void holderLiveness(Report r, LockSettings settings, List<String> deadValues) {
    String holder = r.state.holder == null ? null : r.state.holder.value();
    long dead =
        r.state.deadHolderMillis(
            holder, holder != null && deadValues.contains(holder), System.currentTimeMillis());
    metrics.lockHolder(
        r.lock.getMetadata().getNamespace(),
        r.lock.getMetadata().getName(),
        settings.ttl(),
        Duration.ofMillis(dead));
  }

  UpdateControl<RedisLock> done(Report r, LockSettings settings, LockView view, Duration next) {
    RedisLockStatus s = LockStatuses.base(r.lock, r.state);
    String holder = r.state.holder == null ? null : r.state.holder.value();
    s.setHolder(holder == null ? "" : LockValues.holder(holder));
    s.setAcquiredAt(holder == null ? null : r.state.holder.acquiredAt());
    s.setExpiresAt(
        holder == null
            ? null
            : LockStatuses.expiresAt(clock.instant(), r.old, r.viewAtNanos, view, holder));
    s.setInstances(LockStatuses.instances(settings, view, holder));
    s.setConditions(r.conditions.build());
    return finish(r, s, next);
  }

  @Override
  protected void forgetSeries(String namespace, String name) {
    metrics.forgetLock(namespace, name);
  }

  private UpdateControl<RedisLock> finish(Report r, RedisLockStatus next, Duration reschedule) {
    r.state.reserved.upTo = Math.max(r.state.reserved.upTo, write(r.lock, next, reschedule));
    return next(reschedule);
  }

  private String now() {
    return clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
  }
}
