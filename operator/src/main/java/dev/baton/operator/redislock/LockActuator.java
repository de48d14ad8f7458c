package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.client.LockResult;
import dev.baton.client.LockStore;
import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.metrics.BatonMetrics;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * The act step of a RedisLock reconcile: carries out each {@link LockStep} in Redis and on the
 * pods, labels before locks (docs/design.md, "Locks are exclusive"): a pod's label comes off before
 * its lock is released, and goes on only after the lock is taken for it, so no watcher ever sees
 * two pods labeled held.
 */
final class LockActuator {

  /** Everything one reconcile of one lock acts on. */
  record Scope(
      RedisLock lock,
      LockSettings settings,
      LockStore store,
      LockState state,
      LockReporter.Report report) {
    String ns() {
      return lock.getMetadata().getNamespace();
    }
  }

  private final KubernetesClient client;
  private final String clusterId;
  private final HolderLabels labels;
  private final LockObserver observer;
  private final LockReporter reporter;
  private final TokenReservations reservations;

  LockActuator(
      KubernetesClient client,
      String clusterId,
      HolderLabels labels,
      LockObserver observer,
      LockReporter reporter,
      TokenReservations reservations) {
    this.client = client;
    this.clusterId = clusterId;
    this.labels = labels;
    this.observer = observer;
    this.reporter = reporter;
    this.reservations = reservations;
  }

  /** Carries out a step that changes Redis; the caller looks again and decides the next. */
  LockWorld apply(Scope s, LockWorld world, LockStep step) {
    if (step instanceof LockStep.ForceRelease f) {
      forceRelease(s, f, world.view());
      return again(s, world).forceReleased();
    }
    if (step instanceof LockStep.Reap r) {
      reap(s, r, world.view());
      return again(s, world).reapedDead();
    }
    if (step instanceof LockStep.Reclaim c) {
      labels.clearAllBut(s.ns(), s.settings().labelKey(), null);
      s.store().release(s.settings().keys(), c.value());
      return again(s, world);
    }
    if (step instanceof LockStep.Renew r) {
      LockResult result = renew(s, r.value(), r.token());
      return world.renewed(result.ok(), result.view(), r.value());
    }
    if (step instanceof LockStep.Move m) {
      labels.clearPod(m.from().namespace(), m.from().name(), s.settings().labelKey());
      s.store().release(s.settings().keys(), m.value());
      s.state().grant = null;
      return again(s, world).moved(m.from().namespace() + "/" + m.from().name(), m.because());
    }
    throw new IllegalArgumentException("not a step that changes Redis: " + step);
  }

  /**
   * Carries out the last step of a reconcile.
   *
   * @return the view to report and when to reconcile next
   */
  Finish finish(Scope s, LockWorld world, LockStep step) {
    LockView view = world.view();
    LockSettings settings = s.settings();
    LockState state = s.state();
    LockReporter.Report report = s.report();
    if (step instanceof LockStep.Keep k) {
      return keep(s, world, k);
    }
    if (step instanceof LockStep.Grant g) {
      return grant(s, world, g);
    }
    if (step instanceof LockStep.NoCandidates n) {
      labels.clear(observer.selectedAndLabeled(s.ns(), settings), settings.labelKey(), null);
      state.grant = null;
      reporter.holder(report, null, 0);
      String message = "no ready pod matches spec.holderSelector; nobody holds the lock";
      if (!state.noCandidatesReported) {
        state.noCandidatesReported = true;
        reporter.event(
            report,
            EventReason.NoCandidates,
            n.movedFrom() == null
                ? message
                : message + " (" + n.movedFrom() + " " + n.because() + ")");
      }
      reporter.ready(report, false, "NoCandidates", message);
      return new Finish(view, settings.interval());
    }
    if (step instanceof LockStep.StandAside a) {
      if (state.grant != null) {
        reporter.event(
            report,
            EventReason.LockLost,
            "the lock granted to "
                + state.grant.pod().name()
                + " is held by "
                + LockValues.holder(a.holder())
                + " now");
        labels.clearAllBut(s.ns(), settings.labelKey(), null);
        state.grant = null;
      } else {
        labels.clear(observer.selectedAndLabeled(s.ns(), settings), settings.labelKey(), null);
      }
      reporter.holder(report, a.holder(), view.holderToken());
      reporter.ready(
          report,
          true,
          "HeldElsewhere",
          LockValues.holder(a.holder())
              + " holds the lock (not granted by this operator); it is granted again once free");
      return new Finish(view, settings.interval());
    }
    if (step instanceof LockStep.Report o) {
      return observed(s, view, o.holder());
    }
    if (step instanceof LockStep.Wait) {
      reporter.contended(report);
      return new Finish(view, soon());
    }
    throw new IllegalArgumentException("not a last step: " + step);
  }

  /** What a reconcile reports: the lock as last seen, and when to look again. */
  record Finish(LockView view, Duration next) {}

  private Finish keep(Scope s, LockWorld world, LockStep.Keep k) {
    LockState state = s.state();
    LockSettings settings = s.settings();
    Pod pod =
        observer
            .pod(s.ns(), k.pod().pod().uid(), observer.selected(s.ns(), settings))
            .orElseThrow();
    if (!k.value().equals(state.grantedValue())) {
      state.grant(
          k.value(),
          LockValues.parsePod(k.value()).orElseThrow(),
          k.token(),
          System.nanoTime(),
          world.view());
      reporter.info(
          s.report(), "adopted the grant to " + k.pod().pod().name() + " with token " + k.token());
    }
    long token = state.grant.token();
    reporter.holder(s.report(), k.value(), token);
    // Stale labels (a cache that lagged behind a move) come off before the holder's go on.
    labels.clear(
        observer.selectedAndLabeled(s.ns(), settings),
        settings.labelKey(),
        pod.getMetadata().getUid());
    labels.mark(pod, settings.labelKey(), token);
    state.noCandidatesReported = false;
    reporter.ready(
        s.report(),
        true,
        "Granted",
        pod.getMetadata().getName() + " holds the lock with token " + token);
    long sinceRenew = System.nanoTime() - state.grant.renewedAtNanos();
    return new Finish(
        world.view(),
        Duration.ofNanos(Math.max(10_000_000L, settings.interval().toNanos() - sinceRenew)));
  }

  private Finish grant(Scope s, LockWorld world, LockStep.Grant g) {
    LockState state = s.state();
    LockSettings settings = s.settings();
    LockReporter.Report report = s.report();
    Pod target =
        observer
            .pod(s.ns(), g.pod().pod().uid(), observer.selected(s.ns(), settings))
            .orElseThrow();
    String value =
        LockLabels.grantValue(
            clusterId, s.ns(), target.getMetadata().getName(), target.getMetadata().getUid());
    LockResult r = acquire(s, value);
    if (!r.ok()) {
      // Someone took it between our read and our write, or a Redlock attempt lost the race.
      reporter.count(report, BatonMetrics.LOCK_CONTENTION);
      reporter.contended(report);
      return new Finish(r.view(), soon());
    }
    state.grant(
        value, LockValues.parsePod(value).orElseThrow(), r.token(), System.nanoTime(), r.view());
    reporter.holder(report, value, r.token());
    // The lock is ours now, so no other grant can be live: every other label is stale and comes
    // off (listed from the API server, not a cache that may lag) before the new holder's goes on.
    labels.clearAllBut(s.ns(), settings.labelKey(), target.getMetadata().getUid());
    labels.mark(target, settings.labelKey(), r.token());
    state.noCandidatesReported = false;
    String pod = target.getMetadata().getName();
    String message =
        g.movedFrom() == null
            ? pod + " holds the lock with token " + r.token()
            : "moved from "
                + g.movedFrom()
                + " ("
                + g.because()
                + ") to "
                + pod
                + " with token "
                + r.token();
    reporter.info(report, message);
    reporter.event(
        report, g.movedFrom() == null ? EventReason.LockAcquired : EventReason.LockMoved, message);
    reporter.count(report, BatonMetrics.LOCK_ACQUISITIONS);
    if (g.movedFrom() != null) {
      reporter.count(report, BatonMetrics.LOCK_RELEASES);
    }
    reporter.ready(report, true, "Granted", pod + " holds the lock with token " + r.token());
    return new Finish(r.view(), settings.interval());
  }

  /** The world after a step changed Redis: read again, tokens reserved when it shows too few. */
  private LockWorld again(Scope s, LockWorld world) {
    return reserveIfNeeded(s, observer.again(world, s.settings(), s.store()));
  }

  /**
   * Reserves tokens where a view just read shows too few left before the ceiling (less than half a
   * block), then reads the lock again; else the world as it is.
   */
  LockWorld reserveIfNeeded(Scope s, LockWorld world) {
    if (!TokenReservations.needed(world.view(), s.state().reserved)) {
      return world;
    }
    reservations.reserve(s.lock(), s.state(), s.store(), s.settings().keys(), world.view());
    return observer.again(world, s.settings(), s.store());
  }

  /** Renews a grant; a renewal of the grant this operator holds refreshes what it remembers. */
  private LockResult renew(Scope s, String value, long token) {
    LockState state = s.state();
    long started = System.nanoTime();
    LockResult r = s.store().renew(s.settings().keys(), value, s.settings().ttl(), token);
    LockObserver.quorum(r.view());
    if (r.ok() && value.equals(state.grantedValue())) {
      state.grant =
          new LockState.Grant(value, state.grant.pod(), state.grant.token(), started, r.view());
    }
    return r;
  }

  /** Takes the lock; where Redis has no tokens reserved, reserves them and tries once more. */
  private LockResult acquire(Scope s, String value) {
    LockSettings settings = s.settings();
    Supplier<LockResult> take =
        () ->
            s.store()
                .acquire(
                    settings.keys(),
                    value,
                    settings.ttl(),
                    s.state().maxToken,
                    TokenReservations.known(s.lock(), s.state()));
    LockResult r = take.get();
    LockObserver.quorum(r.view());
    if (!r.ok() && TokenReservations.refused(r.view())) {
      reservations.reserve(s.lock(), s.state(), s.store(), settings.keys(), r.view());
      r = take.get();
      LockObserver.quorum(r.view());
    }
    return r;
  }

  /** No holder selector: report whoever holds the lock; no pod may carry its label. */
  private Finish observed(Scope s, LockView view, String holder) {
    LockSettings settings = s.settings();
    LockState state = s.state();
    if (observer.anyLabeled(s.ns(), settings)) {
      labels.clearAllBut(s.ns(), settings.labelKey(), null);
    }
    state.grant = null;
    String before = state.holder == null ? null : state.holder.value();
    reporter.holder(s.report(), holder, view.holderToken());
    if (holder == null) {
      reporter.ready(s.report(), true, "Free", "nobody holds the lock");
    } else {
      String message =
          LockValues.holder(holder) + " holds the lock with token " + view.holderToken();
      if (!holder.equals(before)) {
        reporter.event(s.report(), EventReason.LockAcquired, message);
        reporter.count(s.report(), BatonMetrics.LOCK_ACQUISITIONS);
      }
      reporter.ready(s.report(), true, "Held", message);
    }
    return new Finish(view, settings.interval());
  }

  /** Asked for on the lock: whatever holds it goes, each value compared before deletion. */
  private void forceRelease(Scope s, LockStep.ForceRelease f, LockView before) {
    LockSettings settings = s.settings();
    labels.clearAllBut(s.ns(), settings.labelKey(), null);
    List<String> released = new ArrayList<>();
    for (String value : f.values()) {
      if (s.store().release(settings.keys(), value).ok()) {
        reporter.count(s.report(), BatonMetrics.LOCK_RELEASES);
        released.add(LockValues.holder(value) + " (token " + before.tokenOf(value) + ")");
      }
    }
    s.state().grant = null;
    String message =
        released.isEmpty()
            ? "force-release requested; the lock was free"
            : "force-released the lock of " + String.join(", ", released) + " on request";
    reporter.info(s.report(), message);
    reporter.event(s.report(), EventReason.ForceReleased, message);
    client
        .resources(RedisLock.class)
        .inNamespace(s.ns())
        .withName(s.lock().getMetadata().getName())
        .edit(
            l -> {
              if (l.getMetadata().getAnnotations() != null) {
                l.getMetadata().getAnnotations().remove(LockLabels.FORCE_RELEASE_ANNOTATION);
              }
              return l;
            });
  }

  /** Deletes the locks of pods that are gone, each with a compare-and-delete on its value. */
  private void reap(Scope s, LockStep.Reap r, LockView view) {
    for (String value : r.values()) {
      if (s.store().release(s.settings().keys(), value).ok()) {
        String message =
            "reaped the lock of "
                + LockValues.holder(value)
                + " (pod gone) without waiting for its ttl; token "
                + view.tokenOf(value);
        reporter.info(s.report(), message);
        reporter.event(s.report(), EventReason.LockReaped, message);
        reporter.count(s.report(), BatonMetrics.LOCK_REAPS);
      }
    }
  }

  private static Duration soon() {
    return Duration.ofMillis(ThreadLocalRandom.current().nextLong(10, 60));
  }
}
