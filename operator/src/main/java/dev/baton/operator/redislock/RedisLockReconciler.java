package dev.baton.operator.redislock;

import dev.baton.client.InstanceView;
import dev.baton.client.LockResult;
import dev.baton.client.LockStore;
import dev.baton.client.LockValues;
import dev.baton.client.LockView;
import dev.baton.operator.api.v1alpha1.RedisLock;
import dev.baton.operator.api.v1alpha1.RedisLockInstanceStatus;
import dev.baton.operator.api.v1alpha1.RedisLockStatus;
import dev.baton.operator.kube.ConditionType;
import dev.baton.operator.kube.Conditions;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.kube.EventRecorder;
import dev.baton.operator.kube.StatusWriter;
import dev.baton.operator.kube.LabelSelectors;
import dev.baton.operator.leadergroup.Candidate;
import dev.baton.operator.lease.RedisConnections;
import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.lease.RedisSettings;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.metrics.Liveness;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.Cleaner;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.DeleteControl;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import io.javaoperatorsdk.operator.processing.event.source.filter.OnUpdateFilter;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each RedisLock. With a holder selector it grants the lock to one ready pod, labels it,
 * renews the lock while the pod is ready and moves it (labels off, release, grant) when it is not.
 * Without one it observes the applications that take the lock, and reaps a lock whose pod is gone.
 * Both modes report holder, token and expiry, and honour {@code baton.dev/force-release}. Triggered
 * by pod events, by changes of the lock (annotations included, its own status excluded) and by a
 * timer.
 */
@ControllerConfiguration(
    name = "redislock",
    generationAwareEventProcessing = false,
    informer = @Informer(onUpdateFilter = RedisLockReconciler.IgnoreStatusOnlyUpdates.class))
public class RedisLockReconciler implements Reconciler<RedisLock>, Cleaner<RedisLock> {

  private static final Logger log = LoggerFactory.getLogger(RedisLockReconciler.class);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  private final KubernetesClient client;
  private final String clusterId;
  private final LockStores stores;
  private final HolderLabels labels;
  private final EventRecorder events;
  private final Liveness liveness;
  private final StatusWriter statusWriter;
  private final Map<ResourceID, LockState> states = new ConcurrentHashMap<>();
  private volatile InformerEventSource<Pod, RedisLock> pods;
  private final LockEvents lockEvents = new LockEvents();
  private final BatonMetrics metrics;

  public RedisLockReconciler(
      KubernetesClient client,
      String clusterId,
      RedisSettings defaultRedis,
      RedisConnections connections,
      BatonMetrics metrics,
      Liveness liveness) {
    this.client = client;
    this.clusterId = clusterId;
    this.stores = new LockStores(defaultRedis, connections, new RedisSecrets(client), lockEvents);
    this.labels = new HolderLabels(client);
    this.events = new EventRecorder(client);
    this.liveness = liveness;
    this.statusWriter = new StatusWriter(client);
    this.metrics = metrics;
  }

  /**
   * The lock's own status patches do not trigger a reconcile (its expiry moves with every renewal);
   * spec, annotations, labels, finalizers and deletion do.
   */
  public static class IgnoreStatusOnlyUpdates implements OnUpdateFilter<RedisLock> {
    @Override
    public boolean accept(RedisLock a, RedisLock b) {
      var ma = a.getMetadata();
      var mb = b.getMetadata();
      return !Objects.equals(ma.getGeneration(), mb.getGeneration())
          || !Objects.equals(ma.getAnnotations(), mb.getAnnotations())
          || !Objects.equals(ma.getLabels(), mb.getLabels())
          || !Objects.equals(ma.getFinalizers(), mb.getFinalizers())
          || !Objects.equals(ma.getDeletionTimestamp(), mb.getDeletionTimestamp());
    }
  }

  @Override
  public List<EventSource<?, RedisLock>> prepareEventSources(
      EventSourceContext<RedisLock> context) {
    IndexerResourceCache<RedisLock> locks = context.getPrimaryCache();
    var config =
        InformerEventSourceConfiguration.from(Pod.class, RedisLock.class)
            .withName("lock-pods")
            .withSecondaryToPrimaryMapper(pod -> locksOf(pod, locks))
            .withNamespacesInheritedFromController()
            .build();
    pods = new InformerEventSource<>(config, context);
    return List.of(pods, lockEvents);
  }

  /**
   * The locks a pod event concerns: those whose holder selector matches it, those it carries the
   * label of, and those whose holder in Redis names it (so its deletion reaps at once).
   */
  Set<ResourceID> locksOf(Pod pod, IndexerResourceCache<RedisLock> locks) {
    String ns = pod.getMetadata().getNamespace();
    Set<ResourceID> out = new HashSet<>();
    locks.list(ns)
        .filter(l -> l.getSpec() != null && l.getSpec().getHolderSelector() != null
            && selects(l, pod))
        .forEach(l -> out.add(ResourceID.fromResource(l)));
    var podLabels = pod.getMetadata().getLabels();
    if (podLabels != null) {
      podLabels.keySet().stream().filter(k -> k.startsWith(LockLabels.PREFIX))
          .forEach(k -> out.add(new ResourceID(k.substring(LockLabels.PREFIX.length()), ns)));
    }
    String id = ns + "/" + pod.getMetadata().getName();
    states.forEach((lock, state) -> {
      if (id.equals(state.holderPod)) {
        out.add(lock);
      }
    });
    return out;
  }

  private static boolean selects(RedisLock lock, Pod pod) {
    try {
      return LabelSelectors.matches(lock.getSpec().getHolderSelector(),
          pod.getMetadata().getLabels());
    } catch (IllegalArgumentException invalidSelector) {
      return false;
    }
  }

  @Override
  public UpdateControl<RedisLock> reconcile(RedisLock lock, Context<RedisLock> context) {
    LockState state =
        states.computeIfAbsent(
            ResourceID.fromResource(lock), id -> LockState.from(lock.getStatus()));
    RedisLockStatus old = lock.getStatus() == null ? new RedisLockStatus() : lock.getStatus();
    Conditions conditions = new Conditions(old.getConditions(), lock.getMetadata().getGeneration());
    LockSettings settings;
    try {
      settings = LockSettings.of(lock);
    } catch (IllegalArgumentException e) {
      return invalid(lock, state, old, conditions, "InvalidSpec", e.getMessage(), null);
    }
    LockStore store;
    try {
      store = stores.of(lock.getMetadata().getNamespace(), settings);
    } catch (RedisSecrets.SecretProblem e) {
      state.failures++;
      return invalid(lock, state, old, conditions, e.reason(), e.getMessage(),
          backoff(state.failures));
    }
    conditions.set(ConditionType.Invalid, false, "Valid", "spec is valid");
    lockEvents.watch(ResourceID.fromResource(lock), settings.keys().lock());
    try {
      return new Pass(lock, settings, store, state, old, conditions).run();
    } catch (KubernetesClientException e) {
      // 409s and 5xx on pod writes: labels come off before a lock changes hands and go on only
      // after it did, so every step in between is safe; try again soon with a growing delay.
      state.failures++;
      Duration delay = backoff(state.failures);
      log.warn("Kubernetes API error ({}), retrying in {} ms: {}", e.getCode(), delay.toMillis(),
          e.getMessage());
      return UpdateControl.<RedisLock>noUpdate().rescheduleAfter(delay);
    }
  }

  /** One reconcile of one lock: observe, act, report. */
  private final class Pass {
    private final RedisLock lock;
    private final LockSettings settings;
    private final LockStore store;
    private final LockState state;
    private final RedisLockStatus old;
    private final Conditions conditions;
    private final String ns;
    private final String name;
    private Duration next;
    /** When the view being acted on was read (System.nanoTime), for its remaining times. */
    private long viewAt = System.nanoTime();

    Pass(RedisLock lock, LockSettings settings, LockStore store, LockState state,
        RedisLockStatus old, Conditions conditions) {
      this.lock = lock;
      this.settings = settings;
      this.store = store;
      this.state = state;
      this.old = old;
      this.conditions = conditions;
      this.ns = lock.getMetadata().getNamespace();
      this.name = lock.getMetadata().getName();
      this.next = settings.interval();
    }

    UpdateControl<RedisLock> run() {
      boolean forced = annotation(lock, LockLabels.FORCE_RELEASE_ANNOTATION) != null;
      List<Pod> candidates = settings.grants()
          ? pods.list(ns, p -> LabelSelectors.matches(settings.holderSelector(),
              p.getMetadata().getLabels())).toList()
          : List.of();
      try {
        LockView view = look(candidates, forced);
        redisAnswered(view);
        if (forced) {
          forceRelease(view);
          view = observe();
        }
        if (reap(view)) {
          view = observe();
        }
        if (settings.grants()) {
          view = grantFlow(view, candidates, true);
        } else {
          view = observeFlow(view);
        }
        state.failures = 0;
        state.lastProblem = null;
        return finish(status(view));
      } catch (QuorumUnavailable e) {
        return failStatic(e.view);
      }
    }

    /** Renews the grant when due; otherwise reads the lock. */
    private LockView look(List<Pod> candidates, boolean forced) {
      if (settings.grants() && state.granted != null && !forced
          && eligible(candidates, state.grantedPod) != null) {
        if (fresh() && state.lastView != null) {
          viewAt = state.lastRenewNanos;
          return state.lastView;
        }
        return renew(state.granted, state.grantedToken).view();
      }
      return observe();
    }

    private boolean fresh() {
      return System.nanoTime() - state.lastRenewNanos < settings.interval().toNanos() / 2;
    }

    private LockResult renew(String value, long token) {
      long started = System.nanoTime();
      LockResult r = store.renew(settings.keys(), value, settings.ttl(), token);
      quorum(r.view());
      if (r.ok() && value.equals(state.granted)) {
        state.lastRenewNanos = started;
        state.lastView = r.view();
      }
      return r;
    }

    /** Reads the lock; reserves tokens first where Redis has too few reserved for what comes. */
    private LockView observe() {
      LockView view = quorum(store.observe(settings.keys()));
      if (view.instances().stream().anyMatch(i -> i.reachable()
          && i.reserved() - i.counter() < state.tokenBlock / 2)) {
        reserveTokens(view);
        view = quorum(store.observe(settings.keys()));
      }
      return view;
    }

    /**
     * Reserves the next block of tokens: first in the status (durable, guarded by resourceVersion
     * so the reservation never goes down), only then on every Redis. A Redis without a reservation
     * of its own has its counter raised to the reservation the status held before, above every
     * token issued (docs/design.md, "Terms and tokens never repeat"). The block doubles while
     * reservations come less than a minute apart, so a busy lock costs few status writes.
     */
    private void reserveTokens(LockView view) {
      long now = System.nanoTime();
      state.tokenBlock = state.lastReservationNanos != 0
          && now - state.lastReservationNanos < RESERVATION_WINDOW.toNanos()
          ? Math.min(state.tokenBlock * 2, MAX_TOKEN_RESERVATION) : MIN_TOKEN_RESERVATION;
      state.lastReservationNanos = now;
      long known = Math.max(state.reserved, state.maxToken);
      long wanted = Math.max(known, view.maxCounter()) + state.tokenBlock;
      RedisLockStatus raise = new RedisLockStatus();
      raise.setReservedToken(wanted);
      StatusWriter.Written<RedisLockStatus> written =
          statusWriter.write(lock, raise, RedisLockReconciler::raiseReservation);
      if (written == null) {
        return;
      }
      long ceiling = reservedToken(written.after());
      state.reserved = Math.max(state.reserved, ceiling);
      store.reserve(settings.keys(), Math.max(known, reservedToken(written.before())), ceiling);
      log.info("RedisLock {}/{}: reserved tokens up to {}", ns, name, ceiling);
    }

    private LockView quorum(LockView view) {
      viewAt = System.nanoTime();
      if (!view.quorumReachable()) {
        throw new QuorumUnavailable(view);
      }
      return view;
    }

    // ---- holder selector: the operator grants the lock ----

    /**
     * @param mayMove false after a move in this pass: decide once more on what Redis holds now,
     *     but do not start another move
     */
    private LockView grantFlow(LockView view, List<Pod> candidates, boolean mayMove) {
      String holder = view.holder();
      String lead = view.mostHeld();
      Optional<LockValues.PodRef> ours = lead == null ? Optional.empty()
          : LockLabels.grantedHere(lead, clusterId);
      if (ours.isPresent()) {
        Pod pod = eligible(candidates, ours.get());
        if (pod != null) {
          boolean renewedNow = lead.equals(state.granted) && fresh();
          if (!lead.equals(holder) || !renewedNow) {
            // Adopt a grant of this cluster (restart, second replica), or win back instances
            // that lost it; a renew refuses if anyone acquired the lock in between.
            LockResult r = renew(lead, view.tokenOf(lead));
            if (r.ok()) {
              view = r.view();
              holder = lead;
            }
          }
          if (lead.equals(holder)) {
            keep(pod, lead, ours.get(), view, candidates);
            return view;
          }
        }
        if (!mayMove) {
          next = Duration.ofMillis(ThreadLocalRandom.current().nextLong(10, 60));
          return view;
        }
        return move(lead, ours.get(), candidates, pod != null ? "lost its majority"
            : whyNot(candidates, ours.get()));
      }
      if (holder == null) {
        return grant(candidates, view, null, null);
      }
      return standAside(holder, view, candidates);
    }

    private void keep(Pod pod, String value, LockValues.PodRef ref, LockView view,
        List<Pod> candidates) {
      if (!value.equals(state.granted)) {
        state.grant(value, ref, view.tokenOf(value), System.nanoTime());
        state.lastView = view;
        log.info("RedisLock {}/{}: adopted the grant to {} with token {}", ns, name,
            ref.name(), state.grantedToken);
      }
      noteHolder(value, state.grantedToken);
      // Stale labels (a cache that lagged behind a move) come off before the holder's go on.
      labels.clear(candidatesAndLabeled(candidates), settings.labelKey(),
          pod.getMetadata().getUid());
      labels.mark(pod, settings.labelKey(), state.grantedToken);
      state.noCandidatesReported = false;
      conditions.set(ConditionType.Ready, true, "Granted",
          pod.getMetadata().getName() + " holds the lock with token " + state.grantedToken);
      long sinceRenew = System.nanoTime() - state.lastRenewNanos;
      next = Duration.ofNanos(Math.max(10_000_000L, settings.interval().toNanos() - sinceRenew));
    }

    /**
     * Break before make: the old holder's label off, then its grant deleted (compare-and-delete),
     * then a new grant. Only the old holder is unlabeled here: any other labeled pod is either
     * stale, and loses its label before the next holder gets one, or the holder another replica
     * granted a moment ago, which keeps it.
     */
    private LockView move(String value, LockValues.PodRef from, List<Pod> candidates,
        String why) {
      labels.clearPod(from.namespace(), from.name(), settings.labelKey());
      store.release(settings.keys(), value);
      state.forgetGrant();
      LockView view = observe();
      if (view.mostHeld() != null) {
        return grantFlow(view, candidates, false);
      }
      return grant(candidates, view, from.namespace() + "/" + from.name(), why);
    }

    private LockView grant(List<Pod> candidates, LockView view, String movedFrom, String why) {
      Pod target = choose(candidates);
      if (target == null) {
        labels.clear(candidatesAndLabeled(candidates), settings.labelKey(), null);
        state.forgetGrant();
        noteHolder(null, 0);
        String message = "no ready pod matches spec.holderSelector; nobody holds the lock";
        if (!state.noCandidatesReported) {
          state.noCandidatesReported = true;
          events.record(lock, EventReason.NoCandidates,
              movedFrom == null ? message : message + " (" + movedFrom + " " + why + ")");
        }
        conditions.set(ConditionType.Ready, false, "NoCandidates", message);
        return view;
      }
      String value = LockLabels.grantValue(clusterId, ns, target.getMetadata().getName(),
          target.getMetadata().getUid());
      LockResult r = store.acquire(settings.keys(), value, settings.ttl(), state.maxToken);
      quorum(r.view());
      if (!r.ok() && r.view().instances().stream().anyMatch(InstanceView::unreserved)) {
        reserveTokens(r.view());
        r = store.acquire(settings.keys(), value, settings.ttl(), state.maxToken);
        quorum(r.view());
      }
      if (!r.ok()) {
        metrics.lock(BatonMetrics.LOCK_CONTENTION, ns, name);
        // Someone took it between our read and our write, or a Redlock attempt lost the race:
        // look again after a short random pause.
        next = Duration.ofMillis(ThreadLocalRandom.current().nextLong(10, 60));
        conditions.keep(ConditionType.Ready);
        if (Conditions.find(old.getConditions(), ConditionType.Ready).isEmpty()) {
          conditions.set(ConditionType.Ready, false, "Contended", "the lock is being taken");
        }
        return r.view();
      }
      state.grant(value, LockValues.parsePod(value).orElseThrow(), r.token(), System.nanoTime());
      state.lastView = r.view();
      noteHolder(value, r.token());
      // The lock is ours now, so no other grant can be live: every other label is stale and comes
      // off (listed from the API server, not a cache that may lag) before the new holder's goes on.
      labels.clearAllBut(ns, settings.labelKey(), target.getMetadata().getUid());
      labels.mark(target, settings.labelKey(), r.token());
      state.noCandidatesReported = false;
      String pod = target.getMetadata().getName();
      String message = movedFrom == null
          ? pod + " holds the lock with token " + r.token()
          : "moved from " + movedFrom + " (" + why + ") to " + pod + " with token " + r.token();
      log.info("RedisLock {}/{}: {}", ns, name, message);
      events.record(lock, movedFrom == null ? EventReason.LockAcquired : EventReason.LockMoved,
          message);
      metrics.lock(BatonMetrics.LOCK_ACQUISITIONS, ns, name);
      if (movedFrom != null) {
        metrics.lock(BatonMetrics.LOCK_RELEASES, ns, name);
      }
      conditions.set(ConditionType.Ready, true, "Granted",
          pod + " holds the lock with token " + r.token());
      next = settings.interval();
      return r.view();
    }

    /** Held by an application or another cluster: no pod here may carry the label. */
    private LockView standAside(String holder, LockView view, List<Pod> candidates) {
      if (state.granted != null) {
        events.record(lock, EventReason.LockLost, "the lock granted to "
            + state.grantedPod.name() + " is held by " + LockValues.holder(holder) + " now");
        labels.clearAllBut(ns, settings.labelKey(), null);
        state.forgetGrant();
      } else {
        labels.clear(candidatesAndLabeled(candidates), settings.labelKey(), null);
      }
      noteHolder(holder, view.holderToken());
      conditions.set(ConditionType.Ready, true, "HeldElsewhere", LockValues.holder(holder)
          + " holds the lock (not granted by this operator); it is granted again once free");
      return view;
    }

    private Pod choose(List<Pod> candidates) {
      List<Pod> ready = candidates.stream().filter(p -> candidate(p).eligible()).toList();
      // Sticky: a pod that carries the label keeps the lock when it is re-granted (data loss).
      Optional<Pod> labeled = ready.stream()
          .filter(p -> HolderLabels.carries(p, settings.labelKey())).findFirst();
      if (labeled.isPresent()) {
        return labeled.get();
      }
      return ready.stream()
          .min(Comparator.comparing(this::candidate, Candidate.PREFERENCE))
          .orElse(null);
    }

    private Candidate candidate(Pod pod) {
      return Candidate.of(pod, settings.labelKey(), node -> false);
    }

    private Pod eligible(List<Pod> candidates, LockValues.PodRef ref) {
      if (ref == null || !ns.equals(ref.namespace())) {
        return null;
      }
      return candidates.stream()
          .filter(p -> ref.uid().equals(p.getMetadata().getUid()) && candidate(p).eligible())
          .findFirst().orElse(null);
    }

    private String whyNot(List<Pod> candidates, LockValues.PodRef ref) {
      Optional<Pod> pod = candidates.stream()
          .filter(p -> ref.uid().equals(p.getMetadata().getUid())).findFirst();
      if (pod.isEmpty()) {
        return pods.get(new ResourceID(ref.name(), ref.namespace()))
            .filter(p -> ref.uid().equals(p.getMetadata().getUid()))
            .isPresent() ? "is no longer selected" : "is gone";
      }
      return switch (candidate(pod.get()).notEligibleBecause()) {
        case TERMINATING -> "is terminating";
        case NOT_READY -> "is not ready";
        case NONE -> "lost its majority";
        default -> "is not eligible (" + candidate(pod.get()).notEligibleBecause() + ")";
      };
    }

    /** The selected pods plus any pod of the namespace that carries this lock's label. */
    private List<Pod> candidatesAndLabeled(List<Pod> candidates) {
      List<Pod> out = new ArrayList<>(candidates);
      pods.list(ns, p -> HolderLabels.carries(p, settings.labelKey()))
          .filter(p -> !candidates.contains(p)).forEach(out::add);
      return out;
    }

    // ---- no holder selector: applications take the lock ----

    private LockView observeFlow(LockView view) {
      String holder = view.holder();
      if (holder != null && LockLabels.grantedHere(holder, clusterId).isPresent()) {
        // A grant left from when the lock had a holder selector: take it back with its labels.
        labels.clearAllBut(ns, settings.labelKey(), null);
        store.release(settings.keys(), holder);
        view = observe();
        holder = view.holder();
      } else if (pods.list(ns, p -> HolderLabels.carries(p, settings.labelKey())).findAny()
          .isPresent()) {
        labels.clearAllBut(ns, settings.labelKey(), null);
      }
      state.forgetGrant();
      boolean changed = !Objects.equals(holder, state.holderValue);
      noteHolder(holder, view.holderToken());
      if (holder == null) {
        conditions.set(ConditionType.Ready, true, "Free", "nobody holds the lock");
      } else {
        String message = LockValues.holder(holder) + " holds the lock with token "
            + view.holderToken();
        if (changed) {
          events.record(lock, EventReason.LockAcquired, message);
          metrics.lock(BatonMetrics.LOCK_ACQUISITIONS, ns, name);
        }
        conditions.set(ConditionType.Ready, true, "Held", message);
      }
      return view;
    }

    // ---- both modes ----

    /**
     * Deletes every lock value that names a pod which no longer exists (or exists with another
     * uid), each with a compare-and-delete on the exact value read. Values without a pod, and
     * grants of other clusters (whose pods this API cannot see), only expire.
     */
    private boolean reap(LockView view) {
      boolean reaped = false;
      for (String value : view.values()) {
        Optional<LockValues.PodRef> ref = LockValues.parsePod(value);
        if (ref.isEmpty() || LockLabels.isGrant(value)
            && LockLabels.grantedHere(value, clusterId).isEmpty()) {
          continue;
        }
        if (LockLabels.grantedHere(value, clusterId).isPresent() && settings.grants()) {
          continue; // moved by grantFlow, labels first
        }
        if (podExists(ref.get())) {
          continue;
        }
        if (store.release(settings.keys(), value).ok()) {
          reaped = true;
          String message = "reaped the lock of " + LockValues.holder(value)
              + " (pod gone) without waiting for its ttl; token " + view.tokenOf(value);
          log.info("RedisLock {}/{}: {}", ns, name, message);
          events.record(lock, EventReason.LockReaped, message);
          metrics.lock(BatonMetrics.LOCK_REAPS, ns, name);
        }
      }
      return reaped;
    }

    /** Asked for on the lock: whatever holds it goes, each value compared before deletion. */
    private void forceRelease(LockView view) {
      labels.clearAllBut(ns, settings.labelKey(), null);
      List<String> released = new ArrayList<>();
      for (String value : view.values()) {
        if (store.release(settings.keys(), value).ok()) {
          metrics.lock(BatonMetrics.LOCK_RELEASES, ns, name);
          released.add(LockValues.holder(value) + " (token " + view.tokenOf(value) + ")");
        }
      }
      state.forgetGrant();
      String message = released.isEmpty()
          ? "force-release requested; the lock was free"
          : "force-released the lock of " + String.join(", ", released) + " on request";
      log.info("RedisLock {}/{}: {}", ns, name, message);
      events.record(lock, EventReason.ForceReleased, message);
      client.resources(RedisLock.class).inNamespace(ns).withName(name).edit(l -> {
        if (l.getMetadata().getAnnotations() != null) {
          l.getMetadata().getAnnotations().remove(LockLabels.FORCE_RELEASE_ANNOTATION);
        }
        return l;
      });
    }

    private boolean podExists(LockValues.PodRef ref) {
      Optional<Pod> cached = pods.get(new ResourceID(ref.name(), ref.namespace()));
      if (cached.isPresent() && ref.uid().equals(cached.get().getMetadata().getUid())) {
        return true;
      }
      // The cache may lag behind a pod that was just created: ask the API server before deleting.
      try {
        Pod pod = client.pods().inNamespace(ref.namespace()).withName(ref.name()).get();
        return pod != null && ref.uid().equals(pod.getMetadata().getUid());
      } catch (KubernetesClientException e) {
        return true;
      }
    }

    private void noteHolder(String value, long token) {
      if (!Objects.equals(value, state.holderValue)) {
        state.holderValue = value;
        boolean sameAsBefore = value != null
            && LockValues.holder(value).equals(state.statusHolder) && token == state.maxToken;
        state.acquiredAt = value == null ? null
            : sameAsBefore && state.statusAcquiredAt != null ? state.statusAcquiredAt : now();
        state.statusHolder = null;
        state.statusAcquiredAt = null;
        state.holderPod = LockValues.parsePod(value)
            .map(p -> p.namespace() + "/" + p.name()).orElse(null);
      }
      state.maxToken = Math.max(state.maxToken, token);
    }

    private void redisAnswered(LockView view) {
      if (state.redisDown) {
        state.redisDown = false;
        events.record(lock, EventReason.RedisRecovered, "Redis is reachable again");
      }
      List<String> down = view.unreachableDescriptions();
      if (down.isEmpty()) {
        conditions.set(ConditionType.RedisAvailable, true, "Reachable",
            settings.isRedlock() ? "all " + view.instances().size() + " instances answered"
                : "Redis answered");
      } else {
        conditions.set(ConditionType.RedisAvailable, false, "Unreachable",
            "unreachable: " + String.join(", ", down) + "; a majority of "
                + view.instances().size() + " still answers");
      }
      if (settings.isRedlock()) {
        conditions.set(ConditionType.QuorumLost, false, "QuorumReachable",
            view.reachable() + " of " + view.instances().size() + " instances answered, "
                + view.quorum() + " needed");
      }
    }

    /** No majority answered: keep labels as they are, grant nothing, report, retry. */
    private UpdateControl<RedisLock> failStatic(LockView view) {
      String what = settings.isRedlock()
          ? "only " + view.reachable() + " of " + view.instances().size()
              + " Redlock instances answered, " + view.quorum() + " needed"
          : "Redis did not answer";
      String message = what + " (unreachable: " + String.join(", ",
          view.unreachableDescriptions()) + "); the lock can be neither taken nor renewed,"
          + " labels are kept as they are";
      if (!state.redisDown) {
        state.redisDown = true;
        log.warn("RedisLock {}/{}: {}", ns, name, message);
        events.record(lock, settings.isRedlock() ? EventReason.QuorumLost
            : EventReason.RedisUnavailable, message);
      }
      conditions.set(ConditionType.RedisAvailable, false, "Unreachable", message);
      if (settings.isRedlock()) {
        conditions.set(ConditionType.QuorumLost, true, "MajorityUnreachable", message);
      }
      conditions.set(ConditionType.Ready, false,
          settings.isRedlock() ? "QuorumLost" : "RedisUnavailable", message);
      state.lastView = null;
      RedisLockStatus s = baseStatus();
      s.setHolder(old.getHolder() == null ? "" : old.getHolder());
      s.setAcquiredAt(old.getAcquiredAt());
      s.setExpiresAt(old.getExpiresAt());
      s.setInstances(instances(view, null));
      s.setConditions(conditions.build());
      next = settings.interval();
      return finish(s);
    }

    private RedisLockStatus status(LockView view) {
      RedisLockStatus s = baseStatus();
      String holder = state.holderValue;
      s.setHolder(holder == null ? "" : LockValues.holder(holder));
      s.setAcquiredAt(holder == null ? null : state.acquiredAt);
      s.setExpiresAt(holder == null ? null : expiresAt(view, holder));
      s.setInstances(instances(view, holder));
      s.setConditions(conditions.build());
      return s;
    }

    private RedisLockStatus baseStatus() {
      RedisLockStatus s = new RedisLockStatus();
      s.setFencingToken(state.maxToken > 0 ? state.maxToken : null);
      s.setReservedToken(state.reserved > 0 ? state.reserved : null);
      s.setObservedGeneration(lock.getMetadata().getGeneration());
      return s;
    }

    /**
     * Now plus Redis's remaining time, to the second. Kept as it was when it moved less than a
     * second, so that a status patch means a renewal happened, not that time passed.
     */
    private String expiresAt(LockView view, String holder) {
      long pttl = holder.equals(view.holder()) ? view.pttlMillis() : -2;
      if (pttl < 0) {
        return pttl == -1 ? null : old.getExpiresAt();
      }
      long age = Duration.ofNanos(System.nanoTime() - viewAt).toMillis();
      Instant at = Instant.now().plusMillis(pttl - age).truncatedTo(ChronoUnit.SECONDS);
      if (old.getExpiresAt() != null) {
        try {
          Instant before = Instant.parse(old.getExpiresAt());
          if (Math.abs(Duration.between(before, at).toMillis()) <= 1000) {
            return old.getExpiresAt();
          }
        } catch (RuntimeException unparsable) {
          // replaced below
        }
      }
      return at.toString();
    }

    private List<RedisLockInstanceStatus> instances(LockView view, String holder) {
      if (!settings.isRedlock()) {
        return null;
      }
      String shown = holder != null ? holder : view.mostHeld();
      List<RedisLockInstanceStatus> out = new ArrayList<>();
      for (InstanceView i : view.instances()) {
        out.add(new RedisLockInstanceStatus(i.name(), i.reachable(), i.holds(shown)));
      }
      return out;
    }

    private UpdateControl<RedisLock> finish(RedisLockStatus next) {
      return RedisLockReconciler.this.finish(lock, old, next, this.next);
    }
  }

  /** Not enough instances answered to decide anything. */
  private static final class QuorumUnavailable extends RuntimeException {
    final transient LockView view;

    QuorumUnavailable(LockView view) {
      super(null, null, false, false);
      this.view = view;
    }
  }

  private UpdateControl<RedisLock> invalid(RedisLock lock, LockState state, RedisLockStatus old,
      Conditions conditions, String reason, String message, Duration retry) {
    if (!message.equals(state.lastProblem)) {
      state.lastProblem = message;
      log.warn("RedisLock {}/{}: {}", lock.getMetadata().getNamespace(),
          lock.getMetadata().getName(), message);
      events.record(lock, EventReason.InvalidSpec, message);
    }
    conditions
        .set(ConditionType.Invalid, true, reason, message)
        .set(ConditionType.Ready, false, reason, message)
        .keep(ConditionType.QuorumLost);
    if (reason.startsWith("Secret") || reason.equals("InvalidSecret")) {
      conditions.set(ConditionType.RedisAvailable, false, reason, message);
    } else {
      conditions.keep(ConditionType.RedisAvailable);
    }
    RedisLockStatus s = new RedisLockStatus();
    s.setHolder(old.getHolder() == null ? "" : old.getHolder());
    s.setFencingToken(old.getFencingToken());
    s.setReservedToken(old.getReservedToken());
    s.setAcquiredAt(old.getAcquiredAt());
    s.setExpiresAt(old.getExpiresAt());
    s.setInstances(old.getInstances());
    s.setObservedGeneration(lock.getMetadata().getGeneration());
    s.setConditions(conditions.build());
    return finish(lock, old, s, retry);
  }

  private UpdateControl<RedisLock> finish(
      RedisLock lock, RedisLockStatus old, RedisLockStatus next, Duration reschedule) {
    var written = statusWriter.write(lock, next, RedisLockReconciler::keepReservation);
    LockState state = states.get(ResourceID.fromResource(lock));
    if (written != null && state != null) {
      state.reserved = Math.max(state.reserved, reservedToken(written.after()));
    }
    liveness.progressed(reschedule);
    UpdateControl<RedisLock> control = UpdateControl.noUpdate();
    return reschedule == null ? control : control.rescheduleAfter(reschedule);
  }

  /** Tokens reserved per status write at first, and at most (the block doubles when busy). */
  static final long MIN_TOKEN_RESERVATION = 1_000;
  static final long MAX_TOKEN_RESERVATION = 1L << 30;
  private static final Duration RESERVATION_WINDOW = Duration.ofMinutes(1);

  private static long reservedToken(RedisLockStatus s) {
    return s == null || s.getReservedToken() == null ? 0 : s.getReservedToken();
  }

  /** The status on the server with its reservation raised to the one asked for, nothing else. */
  private static RedisLockStatus raiseReservation(RedisLockStatus current, RedisLockStatus asked) {
    RedisLockStatus out = Serialization.clone(current);
    out.setReservedToken(Math.max(reservedToken(current), reservedToken(asked)));
    return out;
  }

  /** The status to write, with a reservation never below the one on the server. */
  private static RedisLockStatus keepReservation(RedisLockStatus current, RedisLockStatus next) {
    if (reservedToken(current) > reservedToken(next)) {
      next.setReservedToken(current.getReservedToken());
    }
    return next;
  }

  @Override
  public DeleteControl cleanup(RedisLock lock, Context<RedisLock> context) {
    String ns = lock.getMetadata().getNamespace();
    String name = lock.getMetadata().getName();
    LockState state = states.remove(ResourceID.fromResource(lock));
    lockEvents.forget(ResourceID.fromResource(lock));
    // Labels first, then the grant: a pod never carries the label without the lock.
    try {
      labels.clearAllBut(ns, LockLabels.key(name), null);
    } catch (KubernetesClientException e) {
      log.warn("RedisLock {}/{} deleted; could not remove holder labels: {}", ns, name,
          e.getMessage());
    }
    if (state != null && state.granted != null) {
      try {
        LockSettings settings = LockSettings.of(lock);
        stores.of(ns, settings).release(settings.keys(), state.granted);
      } catch (RuntimeException e) {
        log.info("RedisLock {}/{} deleted; its grant is left to expire: {}", ns, name,
            e.getMessage());
      }
    }
    return DeleteControl.defaultDelete();
  }

  private static String annotation(RedisLock lock, String key) {
    var a = lock.getMetadata().getAnnotations();
    String v = a == null ? null : a.get(key);
    return v == null || v.isBlank() ? null : v.trim();
  }

  private static String now() {
    return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
  }

  private static Duration backoff(int failures) {
    long ms = 200L << Math.min(failures, 8);
    return Duration.ofMillis(Math.min(ms, MAX_BACKOFF.toMillis()));
  }
}
