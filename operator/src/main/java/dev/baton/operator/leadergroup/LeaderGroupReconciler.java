package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.api.v1alpha1.LeaderGroupStatus;
import dev.baton.operator.ControllerKit;
import dev.baton.operator.fencing.Reservations;
import dev.baton.operator.kube.Reporting;
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
import io.fabric8.kubernetes.client.KubernetesClient;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each LeaderGroup's reconcile as a pipeline of values (docs/design.md, "The flow"): observe
 * ({@link GroupObserver}), plan ({@link GroupPlan}: damping, the election and its steps), act
 * ({@link ElectionActuator}, then {@link GroupRouting} and the check of the three views, {@link
 * SplitBrainCheck}) and report ({@link GroupReporter}), as a lock's reconcile does. Each step
 * returns what it found or did; this class alone keeps the {@link ElectionState} that follows.
 * Triggered by pod, node, Service, EndpointSlice and LeaderGroup events (annotations included,
 * hence no generation filtering), by the lease renewer when a lease is lost or Redis stops or
 * starts answering, and by a slow resync timer. Renewals themselves happen in the {@link
 * LeaseRenewer}, batched, outside the reconcile loop. API errors are thrown, for the framework's
 * retry.
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
  private final GroupAgents agents;
  private final KeyClaims keys;
  private final GroupLeftovers leftovers;

  public LeaderGroupReconciler(ControllerKit kit) {
    KubernetesClient client = kit.client();
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
    this.leftovers = new GroupLeftovers(client, labeler, sources);
    StatusWriter statusWriter = kit.statusWriter();
    this.observer =
        new GroupObserver(
            clusterId,
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
        new GroupReporter(
            new Reporting(kit.events(), kit.metrics(), kit.liveness(), statusWriter, clock), terms);
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

  /**
   * One reconcile: observe once, plan once, carry the plan out, report once; the state that follows
   * is kept once, by the report (docs/design.md, "The flow").
   */
  @Override
  public UpdateControl<LeaderGroup> reconcile(LeaderGroup group, Context<LeaderGroup> context) {
    if (!role.mayAct()) {
      return role.notNow();
    }
    if (context.isPrimaryResourceDeleted() || group.isMarkedForDeletion()) {
      cleanup(group);
      return UpdateControl.noUpdate();
    }
    leftovers.removeLegacyFinalizer(group);
    long started = System.nanoTime();
    trace(group, FailoverTrace.Step.RECONCILE_STARTED);
    ElectionState state = keptOrFromStatus(states.get(ResourceID.fromResource(group)), group);
    Observed observed = observe(group, state);
    if (observed.ending() != null) {
      return reported(group, state, observed.ending(), started);
    }
    Observation seen = observed.seen();
    GroupPlan plan = GroupPlan.plan(seen);
    ElectionOutcome outcome = actuator.carryOut(seen, observed.store(), plan.steps());
    return afterActing(group, seen, plan, outcome, started);
  }

  /**
   * What the observe step found: the observation and the Redis it was read from, or, for a
   * reconcile that plans nothing, how it ended.
   *
   * @param ending null when there is an observation to plan from
   */
  private record Observed(Observation seen, LeaseStore store, GroupEnding ending) {

    static Observed ended(GroupEnding ending) {
      return new Observed(null, null, ending);
    }
  }

  /**
   * The observe step. A reconcile ends here, before planning, when the spec cannot be used, its key
   * is another's, the group is paused (its leader's lease is held, nobody elected), or its Secret
   * or Redis fails.
   */
  private Observed observe(LeaderGroup group, ElectionState state) {
    GroupSettings settings;
    try {
      settings = GroupSettings.of(group);
    } catch (IllegalArgumentException e) {
      return Observed.ended(new GroupEnding.Invalid(e.getMessage()));
    }
    Refusal refused = keys.refusal(group, "spec.electionKey", settings.keys().electionKey());
    if (refused != null) {
      return Observed.ended(
          new GroupEnding.Invalid(refused.reason(), refused.event(), refused.message()));
    }
    PodView pods = observer.pods(group, settings, state.promotedPod());
    GroupEnding.Looked looked = GroupEnding.Looked.of(pods, settings);
    if (settings.paused()) {
      return Observed.ended(holdWhilePaused(group, settings, state, looked));
    }
    try {
      LeaseStore store = observer.store(group);
      return new Observed(observer.observe(group, settings, state, pods, store), store, null);
    } catch (RedisSecrets.SecretProblem e) {
      return Observed.ended(new GroupEnding.SecretMissing(looked, false, e));
    } catch (RedisUnavailableException e) {
      return Observed.ended(new GroupEnding.RedisDown(looked, false, false, e));
    }
  }

  /**
   * After the act step: an election that stopped midway is reported (and its failure thrown, or
   * decided again at once); one carried out is routed, its three views checked, then reported.
   */
  private UpdateControl<LeaderGroup> afterActing(
      LeaderGroup group, Observation seen, GroupPlan plan, ElectionOutcome outcome, long started) {
    ElectionState state = seen.state().pending(plan.damping().pending()).record(outcome);
    GroupEnding.Looked looked = GroupEnding.Looked.of(seen.pods(), seen.settings());
    GroupEnding.Elected elected =
        new GroupEnding.Elected(seen, plan.decision(), plan.damping(), outcome);
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
    ElectionState latest = state;
    GroupEnding.Carried carried;
    try {
      GroupRouting.Routed routed = routing.route(seen, plan, latest.routing());
      latest = latest.routed(routed.timing());
      SplitBrainCheck.Finding views = splitBrain.check(seen, plan, latest, clock.millis());
      latest = latest.viewsDisagreeSince(views.sinceMillis());
      carried = new GroupEnding.Carried(looked, elected, routed, views, next(plan, routed, views));
    } catch (RuntimeException | Error e) {
      // The election is carried out in Redis and on the pods: its holder and term reservation
      // must outlive a later step that throws, or the next reconcile plans from a state Redis left.
      keep(ResourceID.fromResource(group), latest);
      throw e;
    }
    return reported(group, latest, carried, started);
  }

  /** When to look again without an event: the earliest the steps asked for. */
  private Duration next(GroupPlan plan, GroupRouting.Routed routed, SplitBrainCheck.Finding views) {
    Duration next = earliest(views.lookAgainIn(), routed.lookAgainIn());
    if (!plan.damping().keepHolder()) {
      return next;
    }
    // A little after the deadline, so the clock has passed it when the reconcile runs.
    return earliest(
        next,
        Duration.between(clock.instant(), plan.damping().pending().failoverAt()).plusMillis(5));
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
   * The report, the reconcile's one last step, and where the state that follows is kept, with the
   * reservation the status records after its write. Kept even when the report throws: an election
   * carried out before it must not be forgotten because its report failed.
   */
  private UpdateControl<LeaderGroup> reported(
      LeaderGroup group, ElectionState state, GroupEnding ending, long started) {
    long reserved = 0;
    UpdateControl<LeaderGroup> control;
    try {
      GroupReporter.Reported r =
          reporter.report(group, state, ending, started, agents.kept(group, ending.looked()));
      reserved = r.reserved();
      control = r.control();
    } finally {
      keep(ResourceID.fromResource(group), state.reservedUpTo(reserved));
    }
    trace(group, FailoverTrace.Step.RECONCILE_ENDED);
    return control;
  }

  private static void trace(LeaderGroup group, FailoverTrace.Step step) {
    FailoverTrace.stamp(
        step, group.getMetadata().getNamespace(), group.getMetadata().getName(), "");
  }

  /** Where the state that outlives a reconcile is written: once per reconcile. */
  private void keep(ResourceID id, ElectionState state) {
    states.put(id, state);
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
    leftovers.removeLegacyFinalizer(group);
    keys.released(group);
  }

  /**
   * Clears the marks that groups deleted while no replica was active left on pods; runs when a
   * replica becomes active.
   */
  public void clearOrphans() {
    leftovers.clearOrphans();
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
