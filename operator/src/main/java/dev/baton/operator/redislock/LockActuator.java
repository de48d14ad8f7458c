package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.client.LockResult;
import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;

/**
 * The act step of a RedisLock reconcile: carries out each {@link LockStep} in Redis and on the
 * pods, labels before locks (docs/design.md, "Locks are exclusive"): a pod's label comes off before
 * its lock is released, and goes on only after the lock is taken for it, so no watcher ever sees
 * two pods labeled held. A write that fails throws, and nothing after it in the step is done. What
 * a step did comes back as a {@link LockOutcome} for the reporter; the act step reports nothing.
 */
final class LockActuator {

  /** Everything one reconcile of one lock acts on. */
  record Scope(RedisLock lock, LockSettings settings, LockRedis store, LockState state) {
    String ns() {
      return lock.getMetadata().getNamespace();
    }
  }

  /**
   * A step stopped by a failed API write after Redis had already changed: what was done by then
   * goes to the reporter before the failure goes to JOSDK's retry, so that a grant or a release is
   * reported when it happened, not when the retry finds it.
   */
  static final class Interrupted extends RuntimeException {
    private final transient LockOutcome done;

    Interrupted(LockOutcome done, RuntimeException failure) {
      super(failure.getMessage(), failure);
      this.done = done;
    }

    LockOutcome done() {
      return done;
    }

    RuntimeException failure() {
      return (RuntimeException) getCause();
    }
  }

  private final String clusterId;
  private final LockPods pods;
  private final TokenReservations reservations;

  LockActuator(String clusterId, LockPods pods, TokenReservations reservations) {
    this.clusterId = clusterId;
    this.pods = pods;
    this.reservations = reservations;
  }

  /** Carries out a step that changes Redis; the caller looks again and decides the next. */
  LockOutcome apply(Scope s, LockWorld world, LockStep step) {
    String key = s.settings().labelKey();
    if (step instanceof LockStep.ForceRelease f) {
      return forceRelease(s, f, world.view());
    }
    if (step instanceof LockStep.Reap r) {
      return new LockOutcome.Reaped(release(s, r.values(), world.view()));
    }
    if (step instanceof LockStep.Reclaim c) {
      pods.clearAllBut(s.ns(), key, null);
      s.store().release(s.settings().keys(), c.value());
      return new LockOutcome.Reclaimed(c.value());
    }
    if (step instanceof LockStep.Renew r) {
      return new LockOutcome.Renewed(r.value(), renew(s, r.value(), r.token()));
    }
    if (step instanceof LockStep.Move m) {
      pods.clearPod(m.from().namespace(), m.from().name(), key);
      s.store().release(s.settings().keys(), m.value());
      s.state().grant = null;
      return new LockOutcome.Moved(
          m.value(), m.from().namespace() + "/" + m.from().name(), m.because());
    }
    throw new IllegalArgumentException("not a step that changes Redis: " + step);
  }

  /** Carries out the last step of a reconcile. */
  LockOutcome.Last finish(Scope s, LockWorld world, LockStep step) {
    LockView view = world.view();
    LockSettings settings = s.settings();
    LockState state = s.state();
    if (step instanceof LockStep.Keep k) {
      return keep(s, world, k);
    }
    if (step instanceof LockStep.Grant g) {
      return grant(s, g);
    }
    if (step instanceof LockStep.NoCandidates n) {
      pods.clearSelected(s.ns(), settings, null);
      state.grant = null;
      return new LockOutcome.NoneEligible(n.movedFrom(), n.because(), view, settings.interval());
    }
    if (step instanceof LockStep.StandAside a) {
      String lostFrom = state.grant == null ? null : state.grant.pod().name();
      if (lostFrom != null) {
        pods.clearAllBut(s.ns(), settings.labelKey(), null);
        state.grant = null;
      } else {
        pods.clearSelected(s.ns(), settings, null);
      }
      return new LockOutcome.StoodAside(
          a.holder(), view.holderToken(), lostFrom, view, settings.interval());
    }
    if (step instanceof LockStep.Report o) {
      if (pods.anyLabeled(s.ns(), settings)) {
        pods.clearAllBut(s.ns(), settings.labelKey(), null);
      }
      state.grant = null;
      return new LockOutcome.Observed(o.holder(), view.holderToken(), view, settings.interval());
    }
    if (step instanceof LockStep.Wait) {
      return new LockOutcome.Waited(view, soon());
    }
    throw new IllegalArgumentException("not a last step: " + step);
  }

  /**
   * Reserves tokens, as a read showed is needed; the caller reads again. Tokens are reserved in the
   * status first, then in Redis ("Terms and tokens never repeat").
   */
  void reserve(Scope s, LockView view) {
    reservations.reserve(s.lock(), s.state(), s.store(), s.settings().keys(), view);
  }

  private LockOutcome.Kept keep(Scope s, LockWorld world, LockStep.Keep k) {
    LockState state = s.state();
    LockSettings settings = s.settings();
    Pod pod = pods.selected(s.ns(), settings, k.pod().pod().uid()).orElseThrow();
    boolean adopted = !k.value().equals(state.grantedValue());
    long token = adopted ? k.token() : state.grant.token();
    // Stale labels (a cache that lagged behind a move) come off before the holder's go on.
    pods.clearSelected(s.ns(), settings, pod.getMetadata().getUid());
    pods.mark(pod, settings.labelKey(), token);
    // Remembered only once its pod is labeled: a label write that fails leaves the grant unknown,
    // so the next reconcile adopts it again, labels it, and reports the adoption then.
    if (adopted) {
      state.grant(
          k.value(),
          LockValues.parsePod(k.value()).orElseThrow(),
          k.token(),
          System.nanoTime(),
          world.view());
    }
    long sinceRenew = System.nanoTime() - state.grant.renewedAtNanos();
    return new LockOutcome.Kept(
        k.value(),
        pod.getMetadata().getName(),
        token,
        adopted,
        world.view(),
        Duration.ofNanos(Math.max(10_000_000L, settings.interval().toNanos() - sinceRenew)));
  }

  private LockOutcome.Last grant(Scope s, LockStep.Grant g) {
    LockState state = s.state();
    LockSettings settings = s.settings();
    Pod target = pods.selected(s.ns(), settings, g.pod().pod().uid()).orElseThrow();
    String value =
        LockLabels.grantValue(
            clusterId, s.ns(), target.getMetadata().getName(), target.getMetadata().getUid());
    LockResult r = acquire(s, value);
    if (!r.ok()) {
      return new LockOutcome.Refused(r.view(), soon());
    }
    state.grant(
        value, LockValues.parsePod(value).orElseThrow(), r.token(), System.nanoTime(), r.view());
    // The lock is ours now, so no other grant can be live: every other label is stale and comes
    // off (listed from the API server, not a cache that may lag) before the new holder's goes on.
    LockOutcome.Granted granted =
        new LockOutcome.Granted(
            value,
            target.getMetadata().getName(),
            r.token(),
            g.movedFrom(),
            g.because(),
            r.view(),
            settings.interval());
    try {
      pods.clearAllBut(s.ns(), settings.labelKey(), target.getMetadata().getUid());
      pods.mark(target, settings.labelKey(), r.token());
    } catch (RuntimeException e) {
      throw new Interrupted(granted, e);
    }
    return granted;
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

  /**
   * Takes the lock; where Redis refused for want of a token reservation, reserves and tries once
   * more. That reservation is the acquire's own answer, not a read's, so it stays in this step
   * (docs/design.md, "The flow").
   */
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
      reserve(s, r.view());
      r = take.get();
      LockObserver.quorum(r.view());
    }
    return r;
  }

  /** Asked for on the lock: whatever holds it goes, each value compared before deletion. */
  private LockOutcome forceRelease(Scope s, LockStep.ForceRelease f, LockView before) {
    pods.clearAllBut(s.ns(), s.settings().labelKey(), null);
    List<LockOutcome.Released> released = release(s, f.values(), before);
    s.state().grant = null;
    LockOutcome.ForceReleased done = new LockOutcome.ForceReleased(released);
    try {
      pods.forceReleaseDone(s.lock());
    } catch (RuntimeException e) {
      throw new Interrupted(done, e);
    }
    return done;
  }

  /** Compare-and-delete of each value; the ones that were still there, with their tokens. */
  private static List<LockOutcome.Released> release(Scope s, List<String> values, LockView view) {
    List<LockOutcome.Released> out = new ArrayList<>();
    for (String value : values) {
      if (s.store().release(s.settings().keys(), value).ok()) {
        out.add(new LockOutcome.Released(value, view.tokenOf(value)));
      }
    }
    return out;
  }

  private static Duration soon() {
    return Duration.ofMillis(ThreadLocalRandom.current().nextLong(10, 60));
  }
}
