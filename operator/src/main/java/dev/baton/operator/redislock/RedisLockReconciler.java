package dev.baton.operator.redislock;

import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockStatus;
import dev.baton.client.BatonNames;
import dev.baton.operator.ControllerKit;
import dev.baton.operator.fencing.Reservations;
import dev.baton.operator.kube.LabelSelectors;
import dev.baton.operator.kube.Reporting;
import dev.baton.operator.kube.StatusWriter;
import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.pods.NodeReadiness;
import dev.baton.operator.pods.PodCatalog;
import dev.baton.operator.pods.PodEvents;
import dev.baton.operator.replica.Activation;
import dev.baton.operator.replica.ReplicaRole;
import dev.baton.operator.tenancy.KeyClaims;
import dev.baton.operator.tenancy.Refusal;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.javaoperatorsdk.operator.api.config.informer.Informer;
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
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each RedisLock as one pipeline of values: observe ({@link LockObserver}), plan ({@link
 * LockDecision}), act ({@link LockActuator}), keep the {@link LockState} that follows, report
 * ({@link LockReporter}). With a holder selector the operator grants the lock to one ready pod and
 * moves it when that pod may no longer hold it; without one, applications take it and the operator
 * reports and reaps. Triggered by pod events, by changes of the lock (annotations included, its own
 * status excluded), by what the lock scripts publish and by a timer. API errors are thrown, for the
 * framework's retry.
 */
@ControllerConfiguration(
    name = "redislock",
    generationAwareEventProcessing = false,
    informer = @Informer(onUpdateFilter = RedisLockReconciler.IgnoreStatusOnlyUpdates.class))
public class RedisLockReconciler implements Reconciler<RedisLock>, Cleaner<RedisLock> {

  private static final Logger log = LoggerFactory.getLogger(RedisLockReconciler.class);

  private final Map<ResourceID, LockState> states = new ConcurrentHashMap<>();
  private final LockEvents lockEvents = new LockEvents();
  private final LockStores stores;
  private final HolderLabels labels;
  private final LockObserver observer;
  private final LockActuator actuator;
  private final LockReporter reporter;
  private final ReplicaRole role;
  private final Clock clock;

  /** The monotonic clock every step times grants and reads by: one, so their times compare. */
  private final LongSupplier nanoTime = System::nanoTime;

  private final Activation activation;
  private final KeyClaims keys;
  private final PodCatalog pods;
  private volatile IndexerResourceCache<RedisLock> locks;
  private final NodeReadiness<RedisLock> nodes = new NodeReadiness<>();

  public RedisLockReconciler(ControllerKit kit) {
    KubernetesClient client = kit.client();
    PodCatalog pods = kit.pods();
    this.role = kit.role();
    this.activation = kit.activation();
    this.keys = kit.tenancy().keys();
    this.pods = pods;
    StatusWriter statusWriter = kit.statusWriter();
    this.stores = new LockStores(kit.connections(), kit.secrets(), lockEvents);
    this.observer = new LockObserver(client, kit.clusterId(), pods, nodes::lost, nanoTime);
    this.labels = new HolderLabels(client);
    // A pod a cached lock's holder selector matches is kept whole from its first event on.
    pods.addInterest(
        pod -> {
          IndexerResourceCache<RedisLock> l = locks;
          return l != null
              && l.list(pod.getMetadata().getNamespace())
                  .anyMatch(
                      lock ->
                          lock.getSpec() != null
                              && lock.getSpec().getHolderSelector() != null
                              && selects(lock, pod));
        });
    // One helper for the act step's reservations and the report's writes, which keep them.
    Reservations<RedisLock, RedisLockStatus> tokens = Reservations.tokens(statusWriter);
    this.reporter =
        new LockReporter(
            new Reporting(kit.events(), kit.metrics(), kit.liveness(), statusWriter, kit.clock()),
            tokens);
    this.actuator = new LockActuator(kit.clusterId(), labels, tokens, nanoTime);
    this.clock = kit.clock();
  }

  /**
   * The lock's own status writes do not trigger a reconcile (its expiry moves with every renewal);
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
    this.locks = locks;
    PodEvents<RedisLock> podEvents = new PodEvents<>("lock-pods", pods, pod -> locksOf(pod, locks));
    // A node turning lost or back: every lock granted by selector looks again (rare, and cheap
    // beside the move it can cause).
    var nodeEvents =
        nodes.eventSource(
            RedisLock.class,
            context,
            node ->
                locks
                    .list()
                    .filter(l -> l.getSpec() != null && l.getSpec().getHolderSelector() != null)
                    .map(ResourceID::fromResource)
                    .collect(Collectors.toSet()));
    return List.of(
        podEvents, nodeEvents, lockEvents, activation.eventSource(context), keys.locks(context));
  }

  /**
   * The locks a pod event concerns: those whose holder selector matches it, those it carries the
   * label of, and those whose holder in Redis names it (so its deletion reaps at once).
   */
  Set<ResourceID> locksOf(Pod pod, IndexerResourceCache<RedisLock> locks) {
    String ns = pod.getMetadata().getNamespace();
    Set<ResourceID> out = new HashSet<>();
    locks
        .list(ns)
        .filter(
            l -> l.getSpec() != null && l.getSpec().getHolderSelector() != null && selects(l, pod))
        .forEach(l -> out.add(ResourceID.fromResource(l)));
    var podLabels = pod.getMetadata().getLabels();
    if (podLabels != null) {
      podLabels.keySet().stream()
          .filter(k -> k.startsWith(BatonNames.LOCK_PREFIX))
          .forEach(k -> out.add(new ResourceID(k.substring(BatonNames.LOCK_PREFIX.length()), ns)));
    }
    String id = ns + "/" + pod.getMetadata().getName();
    states.forEach(
        (lock, state) -> {
          if (id.equals(state.holderPod())) {
            out.add(lock);
          }
        });
    return out;
  }

  private static boolean selects(RedisLock lock, Pod pod) {
    try {
      return LabelSelectors.matches(
          lock.getSpec().getHolderSelector(), pod.getMetadata().getLabels());
    } catch (IllegalArgumentException invalidSelector) {
      return false;
    }
  }

  /**
   * One reconcile: read once, plan once, carry the plan out, keep the state that follows, report
   * once (docs/design.md, "The flow").
   */
  @Override
  public UpdateControl<RedisLock> reconcile(RedisLock lock, Context<RedisLock> context) {
    if (!role.mayAct()) {
      return role.notNow();
    }
    ResourceID id = ResourceID.fromResource(lock);
    LockState before = states.computeIfAbsent(id, i -> LockState.from(lock.getStatus()));
    Observed seen = observe(id, lock, before);
    if (seen.ending() != null) {
      return reported(id, lock, before, seen.after(), seen.ending());
    }
    LockWorld world = seen.look().world();
    List<LockStep> plan = LockDecision.plan(world, seen.look().reserveTokens());
    LockActuator.Outcome outcome =
        actuator.carryOut(
            new LockActuator.Scope(lock, seen.settings(), seen.store(), before), world, plan);
    return afterActing(id, lock, before, seen, outcome);
  }

  /**
   * What the observe step found: the look at the lock, with the settings and the Redis it was read
   * with, or, for a reconcile that plans nothing, how it ended and the state it leaves.
   *
   * @param readAtNanos when the look was read, on the clock every step times grants by
   * @param ending null when there is a look to plan from
   */
  private record Observed(
      LockSettings settings,
      LockRedis store,
      LockObserver.Look look,
      long readAtNanos,
      LockState after,
      LockEnding ending) {

    static Observed ended(LockState after, LockEnding ending) {
      return new Observed(null, null, null, 0, after, ending);
    }
  }

  /**
   * The observe step. A reconcile ends here, before planning, when the spec cannot be used, its key
   * is another's, its Secret fails, or too few Redis instances answer.
   */
  private Observed observe(ResourceID id, RedisLock lock, LockState before) {
    LockSettings settings;
    try {
      settings = LockSettings.of(lock);
    } catch (IllegalArgumentException e) {
      return Observed.ended(before, new LockEnding.Invalid("InvalidSpec", e.getMessage(), null));
    }
    Refusal refused = keys.refusal(lock, "spec.key", settings.keys().key());
    if (refused != null) {
      return Observed.ended(
          before, new LockEnding.Invalid(refused.reason(), refused.message(), null));
    }
    LockRedis store;
    try {
      store = stores.of(lock.getMetadata().getNamespace(), settings);
    } catch (RedisSecrets.SecretProblem e) {
      return Observed.ended(
          before,
          new LockEnding.Invalid(e.reason(), e.getMessage(), RedisSecrets.SecretProblem.RETRY));
    }
    lockEvents.watch(id, settings.keys().lock());
    observer.seeSelected(lock, settings);
    try {
      LockObserver.Look look =
          observer.look(lock, settings, store, before, LockObserver.forceReleaseAsked(lock));
      return new Observed(settings, store, look, nanoTime.getAsLong(), null, null);
    } catch (QuorumUnavailable e) {
      return Observed.ended(before.withoutView(), new LockEnding.Unreachable(settings, e.view));
    }
  }

  /** After the act step: the state that follows kept, the reconcile reported, a failure thrown. */
  private UpdateControl<RedisLock> afterActing(
      ResourceID id,
      RedisLock lock,
      LockState before,
      Observed seen,
      LockActuator.Outcome outcome) {
    LockState after =
        before.record(
            outcome.done(),
            nanoTime.getAsLong(),
            clock.instant().truncatedTo(ChronoUnit.SECONDS).toString());
    if (outcome.lostQuorum() != null) {
      after = after.withoutView();
    }
    LockWorld world = seen.look().world();
    UpdateControl<RedisLock> control =
        reported(
            id,
            lock,
            before,
            after,
            new LockEnding.Carried(
                seen.settings(),
                world.view(),
                seen.readAtNanos(),
                outcome,
                LockDecision.reapable(world)));
    if (outcome.failure() != null) {
      throw outcome.failure();
    }
    return control;
  }

  /** Keeps the state that follows a reconcile, and reports the reconcile. */
  private UpdateControl<RedisLock> reported(
      ResourceID id, RedisLock lock, LockState before, LockState after, LockEnding ending) {
    states.put(id, after);
    LockReporter.Reported r = reporter.report(lock, before, after, ending);
    states.put(id, after.reservedUpTo(r.reserved()));
    return r.control();
  }

  @Override
  public DeleteControl cleanup(RedisLock lock, Context<RedisLock> context) {
    if (!role.mayAct()) {
      return role.notNowForCleanup();
    }
    String ns = lock.getMetadata().getNamespace();
    String name = lock.getMetadata().getName();
    LockState state = states.remove(ResourceID.fromResource(lock));
    lockEvents.forget(ResourceID.fromResource(lock));
    observer.forget(lock);
    // Labels first, then the grant: a pod never carries the label without the lock.
    try {
      labels.clearAllBut(ns, LockLabels.key(name), null);
    } catch (KubernetesClientException e) {
      log.warn(
          "RedisLock {}/{} deleted; could not remove holder labels: {}", ns, name, e.getMessage());
    }
    if (state != null && state.grant() != null) {
      try {
        LockSettings settings = LockSettings.of(lock);
        stores.of(ns, settings).release(settings.keys(), state.grant().value());
      } catch (RuntimeException e) {
        log.info(
            "RedisLock {}/{} deleted; its grant is left to expire: {}", ns, name, e.getMessage());
      }
    }
    reporter.forget(lock);
    keys.released(lock);
    return DeleteControl.defaultDelete();
  }
}
