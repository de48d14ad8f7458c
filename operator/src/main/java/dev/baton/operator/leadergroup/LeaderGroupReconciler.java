package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.client.BatonNames;
import dev.baton.operator.ControllerKit;
import dev.baton.operator.fencing.Reservations;
import dev.baton.operator.kube.Metadata;
import dev.baton.operator.kube.StatusWriter;
import dev.baton.operator.lease.LeaseRenewer;
import dev.baton.operator.lease.LeaseStore;
import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.lease.RedisUnavailableException;
import dev.baton.operator.metrics.FailoverTrace;
import dev.baton.operator.pods.PodLabeler;
import dev.baton.operator.replica.Activation;
import dev.baton.operator.replica.ReplicaRole;
import dev.baton.operator.routing.LeaderEndpoints;
import dev.baton.operator.tenancy.KeyClaims;
import dev.baton.operator.tenancy.Refusal;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.javaoperatorsdk.operator.api.reconciler.Context;
import io.javaoperatorsdk.operator.api.reconciler.ControllerConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.api.reconciler.Reconciler;
import io.javaoperatorsdk.operator.api.reconciler.UpdateControl;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each LeaderGroup's reconcile as a pipeline of values (docs/design.md, "The flow"): observe
 * ({@link GroupObserver}), decide ({@link Election}, with {@link FailoverDamping}), plan ({@link
 * ElectionPlan}), act ({@link ElectionActuator}), route ({@link GroupRouting}), check the three
 * views ({@link SplitBrainCheck}) and report ({@link GroupReporter}). Each step returns what it
 * found or did; this class alone keeps the {@link ElectionState} that follows. Triggered by pod,
 * node, Service, EndpointSlice and LeaderGroup events (annotations included, hence no generation
 * filtering), by the lease renewer when a lease is lost or Redis stops or starts answering, and by
 * a slow resync timer. Renewals themselves happen in the {@link LeaseRenewer}, batched, outside the
 * reconcile loop. API errors are thrown, for the framework's retry.
 */
@ControllerConfiguration(
    name = "leadergroup",
    generationAwareEventProcessing = false,
    // Deletions arrive as events, so no group needs a finalizer (docs/design.md, "Deleting a
    // group").
    triggerReconcilerOnAllEvents = true)
public class LeaderGroupReconciler implements Reconciler<LeaderGroup> {

  /**
   * The finalizer releases before 0.2 put on every group (JOSDK's default name). Removed wherever
   * it is still found, so that no group is left stuck in deletion once the operator is gone.
   */
  static final String LEGACY_FINALIZER = "leadergroups.baton.dev/finalizer";

  private static final Logger log = LoggerFactory.getLogger(LeaderGroupReconciler.class);

  /** How soon to decide again when the lease changed between our read and our write. */
  private static final Duration RACE_RETRY = Duration.ofMillis(10);

  private final Map<ResourceID, ElectionState> states = new ConcurrentHashMap<>();
  private final LeaseEventSource leaseEvents = new LeaseEventSource();
  private final LeaseRenewer<ResourceID> renewer;
  private final GroupEventSources sources;
  private final String clusterId;
  private final PodLabeler labeler;
  private final GroupObserver observer;
  private final ElectionActuator actuator;
  private final GroupReporter reporter;
  private final SplitBrainCheck splitBrain;
  private final GroupRouting routing;
  private final ReplicaRole role;
  private final Activation activation;
  private final Clock clock;
  private final KubernetesClient client;
  private final GroupAgents agents;
  private final KeyClaims keys;

  public LeaderGroupReconciler(ControllerKit kit) {
    this.client = kit.client();
    this.agents = new GroupAgents(client, kit.clock(), kit.agentImage());
    this.sources = new GroupEventSources(kit.pods());
    this.clusterId = kit.clusterId();
    this.role = kit.role();
    this.activation = kit.activation();
    this.clock = kit.clock();
    this.keys = kit.tenancy().keys();
    // A replica that may not act renews nothing: the active one renews the same records.
    this.renewer = new LeaseRenewer<>(leaseEvents::onLease, role::mayAct);
    this.labeler = new PodLabeler(client);
    StatusWriter statusWriter = kit.statusWriter();
    this.observer =
        new GroupObserver(
            clusterId,
            kit.defaultRedis(),
            kit.connections(),
            kit.secrets(),
            renewer,
            sources,
            kit.tenancy().roleLabels(),
            clock);
    // One helper for the act step's reservations and the report's writes, which keep them.
    Reservations<LeaderGroup, LeaderGroupStatus> terms = Reservations.terms(statusWriter);
    this.actuator = new ElectionActuator(new GroupWrites(client, labeler), renewer, terms);
    this.reporter =
        new GroupReporter(kit.events(), kit.metrics(), kit.liveness(), statusWriter, clock, terms);
    this.splitBrain = new SplitBrainCheck(sources.routes());
    this.routing =
        new GroupRouting(
            sources.routes(), new LeaderEndpoints(client, sources.routes()), System::nanoTime);
  }

  @Override
  public List<EventSource<?, LeaderGroup>> prepareEventSources(
      EventSourceContext<LeaderGroup> context) {
    List<EventSource<?, LeaderGroup>> all = new ArrayList<>(sources.prepare(context, leaseEvents));
    all.add(activation.eventSource(context));
    all.add(keys.groups(context));
    return all;
  }

  @Override
  public UpdateControl<LeaderGroup> reconcile(LeaderGroup group, Context<LeaderGroup> context) {
    if (!role.mayAct()) {
      return role.notNow();
    }
    if (context.isPrimaryResourceDeleted() || group.isMarkedForDeletion()) {
      cleanup(group);
      return UpdateControl.noUpdate();
    }
    removeLegacyFinalizer(group);
    long started = System.nanoTime();
    trace(group, FailoverTrace.Step.RECONCILE_STARTED);
    ResourceID id = ResourceID.fromResource(group);
    ElectionState state = keptOrFromStatus(states.get(id), group);
    GroupSettings settings;
    try {
      settings = GroupSettings.of(group);
    } catch (IllegalArgumentException e) {
      return reported(group, state, new GroupEnding.Invalid(e.getMessage()), started);
    }
    Refusal refused = keys.refusal(group, "spec.electionKey", settings.keys().electionKey());
    if (refused != null) {
      return reported(
          group,
          state,
          new GroupEnding.Invalid(refused.reason(), refused.event(), refused.message()),
          started);
    }
    PodView pods = observer.pods(group, settings, state.promotedPod());
    GroupEnding.Looked looked =
        new GroupEnding.Looked(pods, settings.roleLabel(), settings.renewInterval());
    if (settings.paused()) {
      return reported(group, state, holdWhilePaused(group, settings, state, looked), started);
    }
    LeaseStore store;
    Observation seen;
    try {
      store = observer.store(group);
      seen = observer.observe(group, settings, state, pods, store);
    } catch (RedisSecrets.SecretProblem e) {
      return reported(group, state, new GroupEnding.SecretMissing(looked, false, e), started);
    } catch (RedisUnavailableException e) {
      return reported(group, state, new GroupEnding.RedisDown(looked, false, false, e), started);
    }
    FailoverDamping.Verdict damping =
        FailoverDamping.judge(
            settings.failoverDelay(),
            pods.candidates(),
            seen.lease().holder(),
            pods.switchoverTo(),
            seen.state().pendingFailover(),
            seen.now());
    Election.Decision decision =
        Election.decide(
            pods.candidates(),
            seen.lease().holder(),
            pods.switchoverTo(),
            seen.namespace(),
            damping.keepHolder());
    ElectionOutcome outcome = actuator.carryOut(seen, store, ElectionPlan.plan(decision, seen));
    state = keep(id, seen.state().pending(damping.pending()).record(outcome));
    GroupEnding.Elected elected = new GroupEnding.Elected(seen, decision, damping, outcome);
    if (outcome.failure() instanceof RedisUnavailableException e) {
      return reported(group, state, new GroupEnding.RedisDown(looked, false, true, e), started);
    }
    if (outcome.failure() != null) {
      reported(group, state, new GroupEnding.Stopped(looked, elected), started);
      throw outcome.failure();
    }
    if (outcome.retrySoon()) {
      reported(group, state, new GroupEnding.Stopped(looked, elected), started);
      return UpdateControl.<LeaderGroup>noUpdate().rescheduleAfter(RACE_RETRY);
    }
    boolean promoted =
        decision.action() == Election.Action.ELECT && !seen.ledBefore(decision.leader());
    GroupRouting.Routed routed =
        routing.route(group, settings, pods, decision.leader(), promoted, state.routing());
    state = keep(id, state.routed(routed.timing()));
    SplitBrainCheck.Finding views =
        splitBrain.check(
            seen.namespace(),
            state.holder() == null ? null : state.holder().pod(),
            settings,
            pods.membership(),
            damping.keepHolder(),
            state.viewsDisagreeSinceMillis(),
            clock.millis());
    state = keep(id, state.viewsDisagreeSince(views.sinceMillis()));
    Duration next = earliest(views.lookAgainIn(), routed.lookAgainIn());
    if (damping.keepHolder()) {
      // A little after the deadline, so the clock has passed it when the reconcile runs.
      next =
          earliest(
              next,
              Duration.between(clock.instant(), damping.pending().failoverAt()).plusMillis(5));
    }
    return reported(
        group, state, new GroupEnding.Carried(looked, elected, routed, views, next), started);
  }

  /**
   * Paused: the leader's lease is kept while its pod exists; nothing is decided, and no label
   * changes (the leaders' failover-delay annotation says "paused", so their agents wait for the
   * operator).
   */
  private GroupEnding holdWhilePaused(
      LeaderGroup group, GroupSettings settings, ElectionState state, GroupEnding.Looked looked) {
    try {
      LeaseStore store = observer.store(group);
      ElectionPlan.PausedHold hold =
          ElectionPlan.paused(
              state.holder(), looked.pods().candidates(), observer.fresh(group, state.holder()));
      return new GroupEnding.Paused(
          looked,
          actuator.holdWhilePaused(group, settings, state.holder(), looked.pods(), store, hold));
    } catch (RedisSecrets.SecretProblem e) {
      return new GroupEnding.SecretMissing(looked, true, e);
    } catch (RedisUnavailableException e) {
      return new GroupEnding.RedisDown(looked, true, false, e);
    }
  }

  /**
   * The report, the reconcile's one last step; the reservation the status records after its write
   * is kept too.
   */
  private UpdateControl<LeaderGroup> reported(
      LeaderGroup group, ElectionState state, GroupEnding ending, long started) {
    GroupReporter.Reported r =
        reporter.report(group, state, ending, started, agents.kept(group, ending.looked()));
    keep(ResourceID.fromResource(group), state.reservedUpTo(r.reserved()));
    trace(group, FailoverTrace.Step.RECONCILE_ENDED);
    return r.control();
  }

  private static void trace(LeaderGroup group, FailoverTrace.Step step) {
    FailoverTrace.stamp(
        step, group.getMetadata().getNamespace(), group.getMetadata().getName(), "");
  }

  /** The one place the state that outlives a reconcile is written. */
  private ElectionState keep(ResourceID id, ElectionState state) {
    states.put(id, state);
    return state;
  }

  /** What this replica kept of the group, or, when it kept nothing, what its status says. */
  private ElectionState keptOrFromStatus(ElectionState kept, LeaderGroup group) {
    return kept != null
        ? kept
        : ElectionState.from(group.getStatus(), clusterId, group.getMetadata().getNamespace());
  }

  /**
   * Undoes what the group did: its marks on pods, its lease, the Services it owns. Runs on the
   * deletion event, and again on every event of a group held in deletion by someone else's
   * finalizer (then there is nothing left to do).
   */
  private void cleanup(LeaderGroup group) {
    String ns = group.getMetadata().getNamespace();
    String name = group.getMetadata().getName();
    ResourceID id = ResourceID.fromResource(group);
    // A deletion this replica did not see happen while it acted (it became active since): the last
    // status names the holder, whose record the release compares before deleting it.
    ElectionState state = keptOrFromStatus(states.remove(id), group);
    renewer.forget(id);
    sources.forget(group);
    String roleLabel =
        group.getSpec() == null || group.getSpec().getRoleLabel() == null
            ? LeaderGroupSpec.DEFAULT_ROLE_LABEL
            : group.getSpec().getRoleLabel();
    // Labels first, then the lease: a pod never carries the leader label without a lease.
    observer.labeledBy(group).forEach(p -> labeler.clear(p, roleLabel));
    if (state.holder() != null) {
      try {
        observer.store(group).release(GroupSettings.of(group).keys(), state.holder().encode());
      } catch (RuntimeException e) {
        log.info(
            "LeaderGroup {}/{} deleted; its lease is left to expire: {}", ns, name, e.getMessage());
      }
    }
    try {
      routing.forget(group);
    } catch (RuntimeException e) {
      log.info(
          "LeaderGroup {}/{} deleted; its Service is left to the garbage collector: {}",
          ns,
          name,
          e.getMessage());
    }
    reporter.forget(group);
    agents.forget(group);
    removeLegacyFinalizer(group);
    keys.released(group);
  }

  /**
   * Clears the marks that groups deleted while no replica was active left on pods. A deletion seen
   * while active is cleaned up by its own reconcile; this runs when a replica becomes active.
   */
  public void clearOrphans() {
    Map<ResourceID, List<Pod>> byGroup = new HashMap<>();
    for (Pod pod : sources.orphans()) {
      byGroup
          .computeIfAbsent(
              new ResourceID(
                  Metadata.annotation(pod, BatonNames.GROUP_ANNOTATION),
                  pod.getMetadata().getNamespace()),
              k -> new ArrayList<>())
          .add(pod);
    }
    byGroup.forEach(
        (id, pods) -> {
          // The cache may not show a group created a moment ago: the API server decides.
          String ns = id.getNamespace().orElseThrow();
          if (client.resources(LeaderGroup.class).inNamespace(ns).withName(id.getName()).get()
              != null) {
            return;
          }
          pods.forEach(p -> labeler.clear(p, PodLabeler.roleLabelOf(p)));
          log.info(
              "LeaderGroup {}/{} was deleted while no replica was active; cleared its marks from"
                  + " {} pods",
              ns,
              id.getName(),
              pods.size());
        });
  }

  private void removeLegacyFinalizer(LeaderGroup group) {
    List<String> finalizers = group.getMetadata().getFinalizers();
    if (finalizers == null || !finalizers.contains(LEGACY_FINALIZER)) {
      return;
    }
    int at = finalizers.indexOf(LEGACY_FINALIZER);
    // The test makes the removal of entry `at` safe against a list that changed since.
    String patch =
        "[{\"op\":\"test\",\"path\":\"/metadata/finalizers/"
            + at
            + "\",\"value\":\""
            + LEGACY_FINALIZER
            + "\"},{\"op\":\"remove\",\"path\":\"/metadata/finalizers/"
            + at
            + "\"}]";
    try {
      client.resource(group).patch(PatchContext.of(PatchType.JSON), patch);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }

  private static Duration earliest(Duration a, Duration b) {
    if (a == null) {
      return b;
    }
    return b == null || a.compareTo(b) <= 0 ? a : b;
  }

  /** The group a new pod with these labels would join (the injection webhook asks), cached. */
  public Optional<LeaderGroup> groupFor(String namespace, Map<String, String> labels) {
    return sources.owner(namespace, labels);
  }

  /** Stops the renewer; the leases then expire by their TTL unless another replica renews them. */
  public void close() {
    renewer.close();
  }
}
