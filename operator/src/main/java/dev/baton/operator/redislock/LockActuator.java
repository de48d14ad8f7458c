package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.client.InstanceView;
import dev.baton.client.LockResult;
import dev.baton.client.LockView;
import dev.baton.operator.fencing.Reservations;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

/**
 * The act step of a RedisLock reconcile: carries out the plan {@link LockDecision} made, in Redis
 * and on the pods, in its order, and returns what happened. Labels before locks (docs/design.md,
 * "Locks are exclusive"): a pod's label comes off before its lock is released, and goes on only
 * after the lock is taken for it, so no watcher ever sees two pods labeled held. A write that fails
 * stops the plan, and nothing after it is done. It decides nothing but what the plan left to the
 * answers of Redis: which branch follows a renewal, and a reservation when an acquire was refused
 * for want of one.
 *
 * @param nanoTime the monotonic clock renewals are stamped with and a kept grant's next look is
 *     timed by
 */
record LockActuator(
    String clusterId,
    LockPods pods,
    Reservations<RedisLock, RedisLockStatus> reservations,
    LongSupplier nanoTime) {

  /** Everything one reconcile of one lock acts on; {@code state} is read, never written. */
  record Scope(RedisLock lock, LockSettings settings, LockRedis store, LockState state) {
    String ns() {
      return lock.getMetadata().getNamespace();
    }
  }

  /**
   * What the act step did with a plan, whether it finished or stopped midway.
   *
   * @param done each step's outcome, in order
   * @param view Redis as the step last saw it: the read, or a renewal's or acquire's answer since
   * @param lostQuorum the answer of a renewal or acquire that too few instances gave, or null
   * @param failure an API or Redis write that failed and stopped the plan, or null
   */
  record Outcome(
      List<LockOutcome> done, LockView view, LockView lostQuorum, RuntimeException failure) {

    /** The outcome of the plan's last step, or null when the plan stopped before it. */
    LockOutcome.Last last() {
      return !done.isEmpty() && done.get(done.size() - 1) instanceof LockOutcome.Last l ? l : null;
    }
  }

  /** Carries out {@code plan} over the world it was made from. */
  Outcome carryOut(Scope s, LockWorld world, List<LockStep> plan) {
    Run run = new Run(s, world.view());
    try {
      run.steps(plan);
    } catch (QuorumUnavailable e) {
      return new Outcome(List.copyOf(run.done), run.view, e.view, null);
    } catch (RuntimeException e) {
      return new Outcome(List.copyOf(run.done), run.view, null, e);
    }
    return new Outcome(List.copyOf(run.done), run.view, null, null);
  }

  /** One plan being carried out: what was done so far, and Redis as last seen. */
  private final class Run {
    private final Scope s;
    private final List<LockOutcome> done = new ArrayList<>();
    private LockView view;

    private long reserved;
    private Reservations.Block block;

    Run(Scope s, LockView view) {
      this.s = s;
      this.view = view;
      this.reserved = s.state().reserved();
      this.block = s.state().block();
    }

    void steps(List<LockStep> plan) {
      for (LockStep step : plan) {
        if (!(step instanceof LockStep.Renew r)) {
          step(step);
        } else if (!renew(r)) {
          steps(r.ifRefused());
          return;
        }
      }
    }

    private void step(LockStep step) {
      String key = s.settings().labelKey();
      LockSettings settings = s.settings();
      if (step instanceof LockStep.Reserve) {
        cover(view);
        if (LockObserver.reserveTokens(view, block)) {
          reserve(view);
        }
      } else if (step instanceof LockStep.ForceRelease f) {
        forceRelease(f);
      } else if (step instanceof LockStep.Reap r) {
        done.add(new LockOutcome.Reaped(release(r.values())));
      } else if (step instanceof LockStep.Reclaim c) {
        pods.clearAllBut(s.ns(), key, null);
        s.store().release(settings.keys(), c.value());
        done.add(new LockOutcome.Reclaimed(c.value()));
      } else if (step instanceof LockStep.Move m) {
        pods.clearPod(m.from().namespace(), m.from().name(), key);
        s.store().release(settings.keys(), m.value());
        done.add(
            new LockOutcome.Moved(
                m.value(), m.from().namespace() + "/" + m.from().name(), m.because()));
      } else if (step instanceof LockStep.Keep k) {
        keep(k);
      } else if (step instanceof LockStep.Grant g) {
        grant(g);
      } else if (step instanceof LockStep.NoCandidates n) {
        pods.clear(n.unlabel(), key);
        done.add(
            new LockOutcome.NoneEligible(n.movedFrom(), n.because(), view, settings.interval()));
      } else if (step instanceof LockStep.StandAside a) {
        if (a.lostFrom() != null) {
          pods.clearAllBut(s.ns(), key, null);
        } else {
          pods.clear(a.unlabel(), key);
        }
        done.add(
            new LockOutcome.StoodAside(
                a.holder(), view.holderToken(), a.lostFrom(), view, settings.interval()));
      } else if (step instanceof LockStep.Report o) {
        if (o.unlabel()) {
          pods.clearAllBut(s.ns(), key, null);
        }
        done.add(
            new LockOutcome.Observed(o.holder(), view.holderToken(), view, settings.interval()));
      } else if (step instanceof LockStep.Wait) {
        done.add(new LockOutcome.Waited(view, soon()));
      } else {
        throw new IllegalArgumentException("not a step the act step knows: " + step);
      }
    }

    /** Renews a grant; whether Redis took the renewal. */
    private boolean renew(LockStep.Renew r) {
      long started = nanoTime.getAsLong();
      LockResult result =
          s.store().renew(s.settings().keys(), r.value(), s.settings().ttl(), r.token());
      QuorumUnavailable.require(result.view());
      done.add(new LockOutcome.Renewed(r.value(), result, started));
      if (result.ok()) {
        view = result.view();
      }
      return result.ok();
    }

    private void keep(LockStep.Keep k) {
      LockSettings settings = s.settings();
      Pod pod = k.pod().seen();
      // Stale labels (a cache that lagged behind a move) come off before the holder's go on.
      pods.clear(k.stale(), settings.labelKey());
      pods.mark(pod, settings.labelKey(), k.token());
      // Reported (and remembered) only once its pod is labeled: a label write that fails leaves the
      // grant unknown, so the next reconcile adopts it again, labels it, and reports it then.
      long now = nanoTime.getAsLong();
      long sinceRenew = k.adopted() ? 0 : now - renewedAt(k.value());
      done.add(
          new LockOutcome.Kept(
              k.value(),
              pod.getMetadata().getName(),
              k.token(),
              k.adopted(),
              view,
              Duration.ofNanos(Math.max(10_000_000L, settings.interval().toNanos() - sinceRenew))));
    }

    /** When the grant was last renewed: in this plan, or before it. */
    private long renewedAt(String value) {
      for (int i = done.size() - 1; i >= 0; i--) {
        if (done.get(i) instanceof LockOutcome.Renewed r
            && r.result().ok()
            && r.value().equals(value)) {
          return r.startedNanos();
        }
      }
      return s.state().grant().renewedAtNanos();
    }

    private void grant(LockStep.Grant g) {
      LockSettings settings = s.settings();
      Pod target = g.pod().seen();
      String value =
          LockLabels.grantValue(
              clusterId, s.ns(), target.getMetadata().getName(), target.getMetadata().getUid());
      LockResult r = acquire(value);
      view = r.view();
      if (!r.ok()) {
        done.add(new LockOutcome.Refused(r.view(), soon()));
        return;
      }
      // The lock is ours now, so no other grant can be live: every other label is stale and comes
      // off (listed from the API server, not a cache that may lag) before the new holder's goes on.
      // The grant is told to the reporter before the labels, so a label write that fails still
      // reports it when it happened.
      done.add(
          new LockOutcome.Granted(
              value,
              target.getMetadata().getName(),
              r.token(),
              g.movedFrom(),
              g.because(),
              r.view(),
              settings.interval()));
      pods.clearAllBut(s.ns(), settings.labelKey(), target.getMetadata().getUid());
      pods.mark(target, settings.labelKey(), r.token());
    }

    /**
     * Takes the lock; where Redis refused for want of a token reservation, reserves and tries once
     * more. That reservation is the acquire's own answer, which the plan could not know.
     */
    private LockResult acquire(String value) {
      LockSettings settings = s.settings();
      Supplier<LockResult> take =
          () ->
              s.store()
                  .acquire(
                      settings.keys(),
                      value,
                      settings.ttl(),
                      s.state().maxToken(),
                      reservations.known(s.lock(), reserved));
      return Reservations.acquireReserving(
          () -> {
            LockResult r = take.get();
            QuorumUnavailable.require(r.view());
            return r;
          },
          r -> !r.ok() && r.view().instances().stream().anyMatch(InstanceView::unreserved),
          refused -> {
            cover(refused.view());
            reserve(refused.view());
          });
    }

    /**
     * A reservation found in Redis above the one the status records is recorded first, in the
     * status only: every token issued under it is then covered after a loss of Redis's data, and no
     * Redis write follows, so two clusters on one key do not outbid each other.
     */
    private void cover(LockView seen) {
      long inForce =
          seen.instances().stream()
              .filter(InstanceView::reachable)
              .mapToLong(InstanceView::reserved)
              .max()
              .orElse(-1);
      if (inForce <= reservations.known(s.lock(), reserved)) {
        return;
      }
      reservations.cover(
          s.lock(),
          inForce,
          ceiling -> {
            reserved = Math.max(reserved, ceiling);
            done.add(new LockOutcome.Reserved(ceiling, block));
          });
    }

    /** Tokens reserved in the status first, then in Redis ("Terms and tokens never repeat"). */
    private void reserve(LockView seen) {
      long known = Math.max(reserved, s.state().maxToken());
      // Told as soon as the status records it: a Redis failure after that must not lose it.
      reservations.reserve(
          s.lock(),
          known,
          seen.maxCounter(),
          block,
          (floor, ceiling) -> s.store().reserve(s.settings().keys(), floor, ceiling),
          r -> {
            reserved = Math.max(reserved, r.ceiling());
            block = r.block();
            done.add(new LockOutcome.Reserved(r.ceiling(), r.block()));
          });
    }

    /** Asked for on the lock: whatever holds it goes, each value compared before deletion. */
    private void forceRelease(LockStep.ForceRelease f) {
      pods.clearAllBut(s.ns(), s.settings().labelKey(), null);
      done.add(new LockOutcome.ForceReleased(release(f.values())));
      pods.forceReleaseDone(s.lock());
    }

    /** Compare-and-delete of each value; the ones that were still there, with their tokens. */
    private List<LockOutcome.Released> release(List<String> values) {
      List<LockOutcome.Released> out = new ArrayList<>();
      for (String value : values) {
        if (s.store().release(s.settings().keys(), value).ok()) {
          out.add(new LockOutcome.Released(value, view.tokenOf(value)));
        }
      }
      return out;
    }
  }

  private static Duration soon() {
    return Duration.ofMillis(ThreadLocalRandom.current().nextLong(10, 60));
  }
}
