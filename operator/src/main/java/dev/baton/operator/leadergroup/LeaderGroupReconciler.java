package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.operator.ControllerKit;
import dev.baton.operator.kube.BatonNames;
import dev.baton.operator.kube.EventRecorder;
import dev.baton.operator.kube.Metadata;
import dev.baton.operator.kube.StatusWriter;
import dev.baton.operator.lease.LeaseRenewer;
import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.lease.RedisUnavailableException;
import dev.baton.operator.replica.Activation;
import dev.baton.operator.replica.ReplicaRole;
import dev.baton.operator.routing.LeaderEndpoints;
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
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each LeaderGroup's election as observe ({@link GroupObserver}), decide ({@link Election},
 * with {@link FailoverDamping}), act ({@link ElectionActuator}), route ({@link GroupRouting}) and
 * report ({@link GroupReporter}, {@link SplitBrainCheck}). Triggered by pod, node, Service,
 * EndpointSlice and LeaderGroup events (annotations included, hence no generation filtering), by
 * the lease renewer when a lease is lost or Redis stops or starts answering, and by a slow resync
 * timer. Renewals themselves happen in the {@link LeaseRenewer}, batched, outside the reconcile
 * loop. API errors are thrown, for the framework's retry.
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

  public LeaderGroupReconciler(ControllerKit kit) {
    this.client = kit.client();
    this.sources = new GroupEventSources(kit.pods());
    this.clusterId = kit.clusterId();
    this.role = kit.role();
    this.activation = kit.activation();
    this.clock = kit.clock();
    // A replica that may not act renews nothing: the active one renews the same records.
    this.renewer = new LeaseRenewer<>(leaseEvents::onLease, role::mayAct);
    this.labeler = new PodLabeler(client);
    EventRecorder events = kit.events();
    StatusWriter statusWriter = kit.statusWriter();
    this.observer =
        new GroupObserver(
            clusterId, kit.defaultRedis(), kit.connections(), kit.secrets(), renewer, sources);
    this.actuator =
        new ElectionActuator(
            client,
            clusterId,
            labeler,
            renewer,
            new TermReservations(statusWriter),
            sources::holdsPod,
            clock);
    this.reporter = new GroupReporter(events, kit.metrics(), kit.liveness(), statusWriter, clock);
    this.splitBrain = new SplitBrainCheck(sources.routes(), events, clock);
    this.routing =
        new GroupRouting(
            sources.routes(), new LeaderEndpoints(client, sources.routes()), events, kit.metrics());
  }

  @Override
  public List<EventSource<?, LeaderGroup>> prepareEventSources(
      EventSourceContext<LeaderGroup> context) {
    List<EventSource<?, LeaderGroup>> all = new ArrayList<>(sources.prepare(context, leaseEvents));
    all.add(activation.eventSource(context));
    return all;
  }

  @Override
  public UpdateControl<LeaderGroup> reconcile(LeaderGroup group, Context<LeaderGroup> context) {
    if (!role.mayAct()) {
      return UpdateControl.noUpdate();
    }
    if (context.isPrimaryResourceDeleted() || group.isMarkedForDeletion()) {
      cleanup(group);
      return UpdateControl.noUpdate();
    }
    removeLegacyFinalizer(group);
    ElectionState state =
        states.computeIfAbsent(
            ResourceID.fromResource(group),
            id ->
                ElectionState.from(
                    group.getStatus(), clusterId, group.getMetadata().getNamespace()));
    GroupReporter.Report report = reporter.begin(group, state);
    GroupSettings settings;
    try {
      settings = GroupSettings.of(group);
    } catch (IllegalArgumentException e) {
      return reporter.invalid(report, e.getMessage());
    }
    reporter.valid(report);
    String ns = group.getMetadata().getNamespace();
    GroupObserver.PodView pods = observer.pods(group, settings);
    if (settings.paused()) {
      labeler.markLeaders(
          pods.membership().members(), settings.roleLabel(), settings.failoverDelayAnnotation());
      try {
        String leader =
            actuator.holdWhilePaused(
                group, settings, state, pods.candidates(), observer.store(group));
        if (leader != null) {
          reporter.redisAnswered(report);
        }
        return reporter.paused(report, leader, pods.ready(), settings.renewInterval());
      } catch (RedisSecrets.SecretProblem e) {
        return reporter.secretProblem(report, e, pods.ready());
      } catch (RedisUnavailableException e) {
        return reporter.failStatic(report, e, pods.ready(), settings.renewInterval());
      }
    }
    reporter.membership(report, pods.membership(), settings.roleLabel());
    actuator.clearStrays(pods.membership(), settings);
    ElectionActuator.Outcome outcome;
    Election.Decision decision;
    FailoverDamping.Verdict damping;
    try {
      GroupObserver.LeaseView lease = observer.lease(group, settings, state, pods);
      reporter.redisAnswered(report);
      if (lease.term() > 0) {
        state.maxTerm = Math.max(state.maxTerm, lease.term());
      }
      damping =
          FailoverDamping.judge(
              settings.failoverDelay(),
              pods.candidates(),
              lease.holder(),
              pods.switchoverTo(),
              state.pendingFailover,
              clock.instant());
      // The one place the pending failover, which outlives the reconcile, is written.
      state.pendingFailover = damping.pending();
      decision =
          Election.decide(
              pods.candidates(), lease.holder(), pods.switchoverTo(), ns, damping.keepHolder());
      outcome = actuator.carryOut(group, settings, state, pods, lease, decision, report.old);
    } catch (RedisSecrets.SecretProblem e) {
      return reporter.secretProblem(report, e, pods.ready());
    } catch (RedisUnavailableException e) {
      return reporter.failStatic(report, e, pods.ready(), settings.renewInterval());
    }
    if (outcome.retrySoon()) {
      return UpdateControl.<LeaderGroup>noUpdate().rescheduleAfter(RACE_RETRY);
    }
    reporter.carriedOut(report, decision, outcome, pods.membership(), pods.ready(), damping);
    boolean promoted = decision.action() == Election.Action.ELECT && !outcome.sameLeader();
    Duration routeAgain = routing.route(report, settings, pods, outcome.leader(), promoted);
    Duration next =
        splitBrain.check(
            group, state, settings, pods.membership(), report.conditions, damping.keepHolder());
    next = earliest(next, routeAgain);
    if (damping.keepHolder()) {
      // A little after the deadline, so the clock has passed it when the reconcile runs.
      next =
          earliest(
              next,
              Duration.between(clock.instant(), damping.pending().failoverAt()).plusMillis(5));
    }
    return reporter.finish(report, pods.ready(), next);
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
    ElectionState state = states.remove(id);
    renewer.forget(id);
    sources.forget(group);
    String roleLabel =
        group.getSpec() == null || group.getSpec().getRoleLabel() == null
            ? LeaderGroupSpec.DEFAULT_ROLE_LABEL
            : group.getSpec().getRoleLabel();
    // Labels first, then the lease: a pod never carries the leader label without a lease.
    observer.labeledBy(group).forEach(p -> labeler.clear(p, roleLabel));
    if (state != null && state.holder != null) {
      try {
        observer.store(group).release(GroupSettings.of(group).keys(), state.holder.encode());
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
    removeLegacyFinalizer(group);
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

  /** Stops the renewer; the leases then expire by their TTL unless another replica renews them. */
  public void close() {
    renewer.close();
  }
}
