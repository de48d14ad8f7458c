package dev.baton.operator.leadergroup;

import dev.baton.operator.api.v1alpha1.LeaderGroup;
import dev.baton.operator.api.v1alpha1.LeaderGroupSpec;
import dev.baton.operator.api.v1alpha1.LeaderGroupStatus;
import dev.baton.operator.kube.BatonNames;
import dev.baton.operator.kube.ConditionType;
import dev.baton.operator.kube.Conditions;
import dev.baton.operator.kube.EventReason;
import dev.baton.operator.kube.EventRecorder;
import dev.baton.operator.kube.StatusWriter;
import dev.baton.operator.kube.LabelSelectors;
import dev.baton.operator.lease.HolderRecord;
import dev.baton.operator.lease.LeaseRenewer;
import dev.baton.operator.lease.LeaseStore;
import dev.baton.operator.lease.RedisConnections;
import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.lease.RedisSettings;
import dev.baton.operator.lease.RedisUnavailableException;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.metrics.Liveness;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
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
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs each LeaderGroup's election: observes pods (an informer) and Redis (one script), asks
 * {@link Election} what to do, and carries it out break-before-make. Triggered by pod events, by
 * LeaderGroup changes (annotations included, hence no generation filtering), by the lease renewer
 * when a lease is lost or Redis stops or starts answering, and by a slow resync timer. Renewals
 * themselves happen in the {@link LeaseRenewer}, batched, outside the reconcile loop.
 */
@ControllerConfiguration(name = "leadergroup", generationAwareEventProcessing = false)
public class LeaderGroupReconciler implements Reconciler<LeaderGroup>, Cleaner<LeaderGroup> {

  private static final Logger log = LoggerFactory.getLogger(LeaderGroupReconciler.class);
  private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);

  private final KubernetesClient client;
  private final String clusterId;
  private final RedisSettings defaultRedis;
  private final RedisConnections connections;
  private final RedisSecrets secrets;
  private final PodLabeler labeler;
  private final EventRecorder events;
  private final BatonMetrics metrics;
  private final Liveness liveness;
  private final StatusWriter statusWriter;
  private final Map<ResourceID, ElectionState> states = new ConcurrentHashMap<>();
  private final LeaseEventSource leaseEvents = new LeaseEventSource();
  private final LeaseRenewer<ResourceID> renewer = new LeaseRenewer<>(leaseEvents::onLease);
  private volatile InformerEventSource<Pod, LeaderGroup> pods;
  private volatile InformerEventSource<Node, LeaderGroup> nodes;
  private volatile InformerEventSource<Service, LeaderGroup> services;
  private volatile InformerEventSource<EndpointSlice, LeaderGroup> endpointSlices;

  public LeaderGroupReconciler(
      KubernetesClient client,
      String clusterId,
      RedisSettings defaultRedis,
      RedisConnections connections,
      BatonMetrics metrics,
      Liveness liveness) {
    this.client = client;
    this.clusterId = clusterId;
    this.defaultRedis = defaultRedis;
    this.connections = connections;
    this.secrets = new RedisSecrets(client);
    this.labeler = new PodLabeler(client);
    this.events = new EventRecorder(client);
    this.metrics = metrics;
    this.liveness = liveness;
    this.statusWriter = new StatusWriter(client);
  }

  @Override
  public List<EventSource<?, LeaderGroup>> prepareEventSources(
      EventSourceContext<LeaderGroup> context) {
    IndexerResourceCache<LeaderGroup> groups = context.getPrimaryCache();
    var config =
        InformerEventSourceConfiguration.from(Pod.class, LeaderGroup.class)
            .withName("pods")
            .withSecondaryToPrimaryMapper(pod -> groupsOf(pod, groups))
            .withNamespacesInheritedFromController()
            .build();
    pods = new InformerEventSource<>(config, context);
    pods.addIndexers(Map.of(
        BY_LABEL, pod -> {
          var labels = pod.getMetadata().getLabels();
          if (labels == null) {
            return List.of();
          }
          List<String> keys = new java.util.ArrayList<>(labels.size());
          labels.forEach((k, v) -> keys.add(labelIndexKey(pod.getMetadata().getNamespace(), k, v)));
          return keys;
        },
        BY_GROUP, pod -> {
          String g = Membership.annotation(pod, BatonNames.GROUP_ANNOTATION);
          return g == null ? List.of() : List.of(pod.getMetadata().getNamespace() + "/" + g);
        }));
    // Nodes: a node turning NotReady/Unknown moves leadership off it before its pods' own Ready
    // conditions flip. Only readiness changes matter; node heartbeats are filtered out.
    var nodeConfig =
        InformerEventSourceConfiguration.from(Node.class, LeaderGroup.class)
            .withName("nodes")
            .withSecondaryToPrimaryMapper(node -> groupsOnNode(node, groups))
            .withOnUpdateFilter((now, before) -> nodeLost(now) != nodeLost(before))
            .withWatchAllNamespaces()
            .build();
    nodes = new InformerEventSource<>(nodeConfig, context);
    // Services and their EndpointSlices: the third view of invariant 8 (who the leader Service
    // actually routes to). A change to either re-checks the groups of its namespace.
    services = new InformerEventSource<>(
        InformerEventSourceConfiguration.from(Service.class, LeaderGroup.class)
            .withName("services")
            .withSecondaryToPrimaryMapper(svc -> groupsRoutedBy(svc, groups))
            .withNamespacesInheritedFromController()
            .build(),
        context);
    endpointSlices = new InformerEventSource<>(
        InformerEventSourceConfiguration.from(EndpointSlice.class, LeaderGroup.class)
            .withName("endpointslices")
            .withSecondaryToPrimaryMapper(slice -> serviceOf(slice)
                .map(svc -> groupsRoutedBy(svc, groups)).orElse(Set.of()))
            .withNamespacesInheritedFromController()
            .build(),
        context);
    return List.of(pods, nodes, services, endpointSlices, leaseEvents);
  }

  /** Pod index: one entry per label, namespace/key=value. */
  private static final String BY_LABEL = "label";
  /** Pod index: namespace/group of the group that labeled the pod. */
  private static final String BY_GROUP = "group";

  private static String labelIndexKey(String ns, String key, String value) {
    return ns + "/" + key + "=" + value;
  }

  /**
   * The pods a group may concern: those carrying its first matchLabels pair (every selected pod
   * does), and those it labeled before. Read from the informer's indexes, so a reconcile costs the
   * size of the group, not of the namespace; a selector with only matchExpressions lists the
   * namespace.
   */
  private List<Pod> podsConcerning(LeaderGroup group) {
    String ns = group.getMetadata().getNamespace();
    var matchLabels = group.getSpec().getSelector().getMatchLabels();
    if (matchLabels == null || matchLabels.isEmpty()) {
      return pods.list(ns, p -> true).toList();
    }
    var first = matchLabels.entrySet().iterator().next();
    List<Pod> out = new java.util.ArrayList<>(
        pods.byIndex(BY_LABEL, labelIndexKey(ns, first.getKey(), first.getValue())));
    Set<String> seen = new HashSet<>();
    out.forEach(p -> seen.add(p.getMetadata().getUid()));
    for (Pod p : pods.byIndex(BY_GROUP, ns + "/" + group.getMetadata().getName())) {
      if (seen.add(p.getMetadata().getUid())) {
        out.add(p);
      }
    }
    return out;
  }

  /** The groups a pod event concerns: those that select it, and the one it was labeled by. */
  static Set<ResourceID> groupsOf(Pod pod, IndexerResourceCache<LeaderGroup> groups) {
    String ns = pod.getMetadata().getNamespace();
    Set<ResourceID> out = new HashSet<>();
    groups
        .list(ns)
        .filter(g -> g.getSpec() != null && selects(g, pod))
        .forEach(g -> out.add(ResourceID.fromResource(g)));
    String labeledBy = Membership.annotation(pod, BatonNames.GROUP_ANNOTATION);
    if (labeledBy != null) {
      out.add(new ResourceID(labeledBy, ns));
    }
    return out;
  }

  private Set<ResourceID> groupsOnNode(Node node, IndexerResourceCache<LeaderGroup> groups) {
    String name = node.getMetadata().getName();
    Set<ResourceID> out = new HashSet<>();
    pods.list(p -> p.getSpec() != null && name.equals(p.getSpec().getNodeName()))
        .forEach(p -> out.addAll(groupsOf(p, groups)));
    return out;
  }

  /** The groups whose role label the Service selects with the value leader. */
  private static Set<ResourceID> groupsRoutedBy(
      Service svc, IndexerResourceCache<LeaderGroup> groups) {
    Map<String, String> selector = svc.getSpec() == null ? null : svc.getSpec().getSelector();
    if (selector == null) {
      return Set.of();
    }
    Set<ResourceID> out = new HashSet<>();
    groups.list(svc.getMetadata().getNamespace())
        .filter(g -> g.getSpec() != null
            && BatonNames.LEADER.equals(selector.get(Membership.roleLabelOf(g))))
        .forEach(g -> out.add(ResourceID.fromResource(g)));
    return out;
  }

  private Optional<Service> serviceOf(EndpointSlice slice) {
    var labels = slice.getMetadata().getLabels();
    String name = labels == null ? null : labels.get("kubernetes.io/service-name");
    if (name == null || services == null) {
      return Optional.empty();
    }
    return services.get(new ResourceID(name, slice.getMetadata().getNamespace()));
  }

  /**
   * The pods behind this group's leader Services: Services that select its role label with the
   * value leader and whose other selector labels select at least one member. Null when none.
   */
  private Set<String> routedPods(String ns, String roleLabel, List<Pod> members) {
    if (services == null || endpointSlices == null) {
      return null;
    }
    List<Service> leaderServices = services.list(ns, svc -> {
      Map<String, String> sel = svc.getSpec() == null ? null : svc.getSpec().getSelector();
      if (sel == null || !BatonNames.LEADER.equals(sel.get(roleLabel))) {
        return false;
      }
      return members.stream().anyMatch(p -> sel.entrySet().stream()
          .filter(e -> !e.getKey().equals(roleLabel))
          .allMatch(e -> e.getValue().equals(PodLabeler.label(p, e.getKey()))));
    }).toList();
    if (leaderServices.isEmpty()) {
      return null;
    }
    Set<String> names = new HashSet<>();
    for (Service svc : leaderServices) {
      String svcName = svc.getMetadata().getName();
      endpointSlices.list(ns, slice -> slice.getMetadata().getLabels() != null
              && svcName.equals(slice.getMetadata().getLabels().get("kubernetes.io/service-name")))
          .forEach(slice -> {
            if (slice.getEndpoints() == null) {
              return;
            }
            slice.getEndpoints().forEach(ep -> {
              boolean ready = ep.getConditions() == null
                  || !Boolean.FALSE.equals(ep.getConditions().getReady());
              if (ready && ep.getTargetRef() != null && "Pod".equals(ep.getTargetRef().getKind())) {
                names.add(ep.getTargetRef().getName());
              }
            });
          });
    }
    return names;
  }

  /** A node that exists and whose Ready condition is False or Unknown. */
  static boolean nodeLost(Node node) {
    if (node == null || node.getStatus() == null || node.getStatus().getConditions() == null) {
      return false;
    }
    return node.getStatus().getConditions().stream()
        .anyMatch(c -> "Ready".equals(c.getType()) && !"True".equals(c.getStatus()));
  }

  private boolean nodeLost(String nodeName) {
    return nodes != null && nodes.get(new ResourceID(nodeName)).map(LeaderGroupReconciler::nodeLost)
        .orElse(false);
  }

  private static boolean selects(LeaderGroup g, Pod pod) {
    try {
      return LabelSelectors.matches(g.getSpec().getSelector(), pod.getMetadata().getLabels());
    } catch (IllegalArgumentException invalidSelector) {
      return false;
    }
  }

  @Override
  public UpdateControl<LeaderGroup> reconcile(LeaderGroup group, Context<LeaderGroup> context) {
    long started = System.nanoTime();
    String ns = group.getMetadata().getNamespace();
    ElectionState state =
        states.computeIfAbsent(
            ResourceID.fromResource(group),
            id -> ElectionState.from(group.getStatus(), clusterId, ns));
    LeaderGroupStatus old = group.getStatus() == null ? new LeaderGroupStatus() : group.getStatus();
    Conditions conditions =
        new Conditions(old.getConditions(), group.getMetadata().getGeneration());

    GroupSettings settings;
    try {
      settings = GroupSettings.of(group);
    } catch (IllegalArgumentException e) {
      reportOnce(group, state, EventReason.InvalidSpec, e.getMessage());
      conditions
          .set(ConditionType.Invalid, true, "InvalidSpec", e.getMessage())
          .set(ConditionType.Ready, false, "InvalidSpec", e.getMessage())
          .keep(ConditionType.RedisAvailable)
          .keep(ConditionType.Conflict)
          .keep(ConditionType.SplitBrainSuspected);
      return finish(group, old, status(group, state, old.getCandidates(), conditions), null);
    }
    conditions.set(ConditionType.Invalid, false, "Valid", "spec is valid");
    if (settings.paused()) {
      conditions
          .set(ConditionType.Ready, false, "Paused",
              "paused: labels are left as they are, nobody is elected, nothing is renewed")
          .keep(ConditionType.RedisAvailable)
          .keep(ConditionType.Conflict)
          .keep(ConditionType.SplitBrainSuspected);
      return finish(group, old, status(group, state, old.getCandidates(), conditions), null);
    }
    try {
      return elect(group, context, settings, state, old, conditions, started);
    } catch (KubernetesClientException e) {
      // 409s and 5xx on pod patches: nothing was promoted after a failed demotion, so the
      // invariants hold; try again soon with a growing delay.
      state.failures++;
      Duration delay = backoff(state.failures);
      log.warn("Kubernetes API error ({}), retrying in {} ms: {}", e.getCode(), delay.toMillis(),
          e.getMessage());
      return UpdateControl.<LeaderGroup>noUpdate().rescheduleAfter(delay);
    }
  }

  private UpdateControl<LeaderGroup> elect(
      LeaderGroup group,
      Context<LeaderGroup> context,
      GroupSettings settings,
      ElectionState state,
      LeaderGroupStatus old,
      Conditions conditions,
      long started) {
    String ns = group.getMetadata().getNamespace();
    String name = group.getMetadata().getName();
    Membership membership =
        Membership.of(
            group,
            settings.roleLabel(),
            podsConcerning(group),
            context.getPrimaryCache().list(ns).toList());
    if (membership.conflicts().isEmpty()) {
      conditions.set(ConditionType.Conflict, false, "NoConflict", "no pod is claimed twice");
    } else {
      String message = conflictMessage(membership.conflicts(), settings.roleLabel());
      if (!Conditions.isTrue(old.getConditions(), ConditionType.Conflict)) {
        events.record(group, EventReason.Conflict, message);
      }
      conditions.set(ConditionType.Conflict, true, "PodClaimedByOtherGroup", message);
    }
    for (Pod stray : membership.strays()) {
      labeler.clear(stray, settings.roleLabel());
    }
    List<Candidate> candidates =
        membership.members().stream()
            .map(p -> Candidate.of(p, settings.roleLabel(), this::nodeLost))
            .toList();
    int ready = (int) candidates.stream().filter(Candidate::eligible).count();
    String switchoverTo = annotation(group, BatonNames.SWITCHOVER_ANNOTATION);

    ResourceID id = ResourceID.fromResource(group);
    LeaseStore store;
    LeaseStore.Observation seen;
    boolean fromRenewer = false;
    try {
      store = leaseStore(group);
      seen = observe(id, store, settings, state, candidates, switchoverTo);
      if (seen == RENEWED_BY_RENEWER) {
        seen = new LeaseStore.Observation(true, state.holder.encode(), -1, -1);
        fromRenewer = true;
      }
    } catch (RedisSecrets.SecretProblem e) {
      reportOnce(group, state, EventReason.RedisUnavailable, e.getMessage());
      conditions
          .set(ConditionType.RedisAvailable, false, e.reason(), e.getMessage())
          .set(ConditionType.Ready, false, e.reason(), e.getMessage())
          .keep(ConditionType.SplitBrainSuspected);
      state.failures++;
      return finish(group, old, status(group, state, ready, conditions),
          backoff(state.failures));
    } catch (RedisUnavailableException e) {
      return failStatic(group, state, old, conditions, ready, settings, e);
    }
    if (state.redisDown) {
      state.redisDown = false;
      events.record(group, EventReason.RedisRecovered, "Redis is reachable again");
    }
    state.lastProblem = null;
    state.failures = 0;
    conditions.set(ConditionType.RedisAvailable, true, "Reachable", "Redis answered");
    if (seen.term() > 0) {
      state.maxTerm = Math.max(state.maxTerm, seen.term());
    }

    Election.Holder holder = classify(seen.holder());
    Election.Decision decision = Election.decide(candidates, holder, switchoverTo, ns);
    HolderRecord previous = holder instanceof Election.Holder.Ours o ? o.record() : null;
    String previousLeader = previous != null ? previous.pod() : state.promotedPod;
    Candidate leader = decision.leader();
    long ttl = settings.ttl().toMillis();
    try {
      switch (decision.action()) {
        case KEEP -> {
          Election.Holder.Ours ours = (Election.Holder.Ours) holder;
          if (!seen.renewed()) {
            if (!store.renew(settings.keys(), ours.raw(), ttl).renewed()) {
              return UpdateControl.<LeaderGroup>noUpdate().rescheduleAfter(Duration.ofMillis(10));
            }
          }
          if (state.holder == null || !state.holder.uid().equals(ours.record().uid())) {
            state.leaderSince = Objects.equals(old.getLeaderUID(), ours.record().uid())
                ? old.getLeaderSince()
                : now();
          }
          state.adopt(ours.record());
          if (!fromRenewer) {
            renewer.hold(id, store, settings.keys(), ours.raw(), settings.ttl(),
                settings.renewInterval());
          }
        }
        case ELECT -> {
          demoteAllBut(leader, membership.members(), state, settings, name, ns);
          String expected = holder instanceof Election.Holder.Ours o ? o.raw() : "";
          String prefix = HolderRecord.prefix(clusterId, ns, leader.name(), leader.uid());
          LeaseStore.Acquisition got = store.acquire(settings.keys(), expected, prefix, ttl);
          if (got.unreserved()) {
            reserveTerms(group, state, store, settings, membership.members(),
                got.unreservedCounter());
            got = store.acquire(settings.keys(), expected, prefix, ttl);
          }
          if (!got.acquired()) {
            // Someone changed the lease between our read and our write (or reserved terms in the
            // meantime): decide again at once.
            return UpdateControl.<LeaderGroup>noUpdate().rescheduleAfter(Duration.ofMillis(10));
          }
          HolderRecord record = HolderRecord.parse(got.holder()).orElseThrow();
          boolean samePod =
              state.holder != null && state.holder.uid().equals(leader.uid())
                  || leader.labeledLeader();
          if (!samePod || state.leaderSince == null) {
            state.leaderSince = now();
          }
          state.adopt(record);
          renewer.hold(id, store, settings.keys(), got.holder(), settings.ttl(),
              settings.renewInterval());
        }
        case RELEASE, STAND_ASIDE -> {
          renewer.forget(id);
          demoteAllBut(null, membership.members(), state, settings, name, ns);
          if (decision.action() == Election.Action.RELEASE
              && holder instanceof Election.Holder.Ours o) {
            store.release(settings.keys(), o.raw());
          }
          state.forgetHolder();
        }
      }
    } catch (RedisUnavailableException e) {
      return failStatic(group, state, old, conditions, ready, settings, e);
    }

    labelMembers(leader, membership.members(), state, settings, name, ns);

    if (decision.action() == Election.Action.ELECT) {
      String message =
          leader.name().equals(previousLeader)
              ? "lease was lost in Redis; re-acquired for " + leader.name() + " with term "
                  + state.holder.term()
              : leader.name() + " leads with term " + state.holder.term()
                  + describeChange(decision.reason(), previousLeader);
      log.info("LeaderGroup {}/{}: {}", ns, name, message);
      events.record(group, decision.reason(), message);
      metrics.leaderChanged(ns, name, decision.reason().name());
      if (previousLeader != null && !leader.name().equals(previousLeader)) {
        metrics.failover(ns, name, Duration.ofNanos(System.nanoTime() - started));
      }
    }
    handleSwitchover(group, decision);

    switch (decision.action()) {
      case KEEP, ELECT -> conditions.set(ConditionType.Ready, true, "LeaderElected",
          leader.name() + " leads with term " + state.holder.term());
      case STAND_ASIDE -> conditions.set(ConditionType.Ready, true, "LeaderInOtherCluster",
          "the lease is held outside this cluster; all pods here are followers");
      case RELEASE -> {
        boolean conflicted = membership.members().isEmpty() && !membership.conflicts().isEmpty();
        String reason = conflicted ? "Conflict" : "NoCandidates";
        String message = conflicted
            ? "every selected pod is claimed by an older LeaderGroup"
            : "no ready candidate pod; nobody is leader";
        if (!"NoCandidates".equals(Conditions.find(old.getConditions(), ConditionType.Ready)
            .map(io.fabric8.kubernetes.api.model.Condition::getReason).orElse(null))
            && !conflicted) {
          events.record(group, EventReason.NoCandidates, message);
        }
        conditions.set(ConditionType.Ready, false, reason, message);
      }
    }
    metrics.groupState(ns, name, state.maxTerm, ready);
    Duration next = checkViews(group, state, settings, membership, conditions);
    return finish(group, old, status(group, state, ready, conditions), next);
  }

  /**
   * Reserves the next block of terms: first in the status (durable, guarded by resourceVersion so
   * the reservation never goes down), only then in Redis. On a Redis without a reservation of its
   * own the counter is raised to the reservation the status held before, above every term issued
   * (docs/design.md, "Terms and tokens never repeat").
   */
  private void reserveTerms(LeaderGroup group, ElectionState state, LeaseStore store,
      GroupSettings settings, List<Pod> members, long counter) {
    long known = Math.max(state.reserved, state.maxTerm);
    for (Pod p : members) {
      known = Math.max(known, Membership.term(p));
    }
    long wanted = Math.max(known, counter) + TERM_RESERVATION;
    LeaderGroupStatus raise = new LeaderGroupStatus();
    raise.setReservedTerm(wanted);
    StatusWriter.Written<LeaderGroupStatus> written =
        statusWriter.write(group, raise, LeaderGroupReconciler::raiseReservation);
    if (written == null) {
      return;
    }
    long before = reservedTerm(written.before());
    long ceiling = reservedTerm(written.after());
    state.reserved = Math.max(state.reserved, ceiling);
    store.reserve(settings.keys(), Math.max(known, before), ceiling);
    log.info("LeaderGroup {}/{}: reserved terms up to {}", group.getMetadata().getNamespace(),
        group.getMetadata().getName(), ceiling);
  }

  /** Terms reserved per status write: a Redis that loses its data skips at most this many. */
  static final long TERM_RESERVATION = 100;

  private static long reservedTerm(LeaderGroupStatus s) {
    return s == null || s.getReservedTerm() == null ? 0 : s.getReservedTerm();
  }

  /** The status on the server with its reservation raised to the one asked for, nothing else. */
  private static LeaderGroupStatus raiseReservation(LeaderGroupStatus current,
      LeaderGroupStatus asked) {
    LeaderGroupStatus out = Serialization.clone(current);
    out.setReservedTerm(Math.max(reservedTerm(current), reservedTerm(asked)));
    return out;
  }

  /** The status to write, with a reservation never below the one on the server. */
  private static LeaderGroupStatus keepReservation(LeaderGroupStatus current,
      LeaderGroupStatus next) {
    if (reservedTerm(current) > reservedTerm(next)) {
      next.setReservedTerm(current.getReservedTerm());
    }
    return next;
  }

  /** Marks an observation that needed no Redis call: the renewer renewed the lease lately. */
  private static final LeaseStore.Observation RENEWED_BY_RENEWER =
      new LeaseStore.Observation(true, null, -1, -1);

  /**
   * Renews the lease we hold, or reads it. While the renewer keeps the lease fresh and its holder
   * is still a ready member, nothing is sent: pod events then cost no Redis call.
   */
  private LeaseStore.Observation observe(
      ResourceID id,
      LeaseStore store,
      GroupSettings settings,
      ElectionState state,
      List<Candidate> candidates,
      String switchoverTo) {
    if (state.holder == null) {
      return store.observe(settings.keys());
    }
    Optional<Candidate> holderPod =
        candidates.stream().filter(c -> c.uid().equals(state.holder.uid())).findFirst();
    if (holderPod.isEmpty() || !holderPod.get().eligible()) {
      return store.observe(settings.keys());
    }
    if (switchoverTo == null && renewer.fresh(id, state.holder.encode())) {
      return RENEWED_BY_RENEWER;
    }
    return store.renew(settings.keys(), state.holder.encode(), settings.ttl().toMillis());
  }

  private UpdateControl<LeaderGroup> failStatic(
      LeaderGroup group,
      ElectionState state,
      LeaderGroupStatus old,
      Conditions conditions,
      int ready,
      GroupSettings settings,
      RedisUnavailableException e) {
    if (!state.redisDown) {
      state.redisDown = true;
      log.warn("LeaderGroup {}/{}: {}; keeping labels as they are", group.getMetadata()
          .getNamespace(), group.getMetadata().getName(), e.getMessage());
      events.record(group, EventReason.RedisUnavailable,
          e.getMessage() + "; labels are kept as they are until Redis answers");
    }
    conditions.set(ConditionType.RedisAvailable, false, "Unreachable",
        e.getMessage() + "; labels are kept as they are")
        .keep(ConditionType.SplitBrainSuspected);
    if (Conditions.find(old.getConditions(), ConditionType.Ready).isPresent()) {
      conditions.keep(ConditionType.Ready);
    } else {
      conditions.set(ConditionType.Ready, false, "RedisUnavailable", e.getMessage());
    }
    return finish(group, old, status(group, state, ready, conditions), settings.renewInterval());
  }

  /** Break before make: every pod but the new leader loses the leader label first. */
  private void demoteAllBut(
      Candidate leader, List<Pod> members, ElectionState state, GroupSettings settings,
      String group, String ns) {
    PodLabeler.Role follower = role(settings, group, false, 0, null);
    for (Pod pod : members) {
      boolean isLeader = leader != null && leader.uid().equals(pod.getMetadata().getUid());
      if (!isLeader && BatonNames.LEADER.equals(PodLabeler.label(pod, settings.roleLabel()))) {
        labeler.apply(pod, follower);
        if (pod.getMetadata().getName().equals(state.promotedPod)) {
          state.promotedPod = null;
        }
      }
    }
    // The informer may not show our last promotion yet: demote that pod whatever the cache says.
    if (state.promotedPod != null && (leader == null || !state.promotedPod.equals(leader.name()))) {
      labeler.demote(ns, state.promotedPod, follower);
      state.promotedPod = null;
    }
  }

  private void labelMembers(
      Candidate leader, List<Pod> members, ElectionState state, GroupSettings settings,
      String group, String ns) {
    demoteAllBut(leader, members, state, settings, group, ns);
    if (leader != null) {
      Pod pod = members.stream()
          .filter(p -> leader.uid().equals(p.getMetadata().getUid()))
          .findFirst()
          .orElseThrow();
      labeler.apply(pod,
          role(settings, group, true, state.holder.term(), state.leaderSince));
      state.promotedPod = leader.name();
    }
    PodLabeler.Role follower = role(settings, group, false, 0, null);
    for (Pod pod : members) {
      if (leader == null || !leader.uid().equals(pod.getMetadata().getUid())) {
        labeler.apply(pod, follower);
      }
    }
  }

  private static PodLabeler.Role role(
      GroupSettings settings, String group, boolean leader, long term, String since) {
    return new PodLabeler.Role(
        settings.roleLabel(), group, leader, term, since, settings.protectLeader());
  }

  private void handleSwitchover(LeaderGroup group, Election.Decision decision) {
    if (decision.switchover() == Election.SwitchoverOutcome.NONE) {
      return;
    }
    if (decision.switchover() == Election.SwitchoverOutcome.REFUSED) {
      events.record(group, EventReason.SwitchoverRefused,
          "switchover refused: " + decision.switchoverMessage() + "; the leader stays");
    }
    client
        .resources(LeaderGroup.class)
        .inNamespace(group.getMetadata().getNamespace())
        .withName(group.getMetadata().getName())
        .edit(
            g -> {
              if (g.getMetadata().getAnnotations() != null) {
                g.getMetadata().getAnnotations().remove(BatonNames.SWITCHOVER_ANNOTATION);
              }
              return g;
            });
  }

  private LeaseStore leaseStore(LeaderGroup group) {
    var ref = group.getSpec().getRedis();
    RedisSettings settings =
        ref == null
            ? defaultRedis
            : secrets.settings(group.getMetadata().getNamespace(), ref.getSecretRef().getName());
    return connections.leaseStore(settings);
  }

  private Election.Holder classify(String raw) {
    if (raw == null) {
      return new Election.Holder.Free();
    }
    return HolderRecord.parse(raw)
        .filter(r -> r.clusterId().equals(clusterId))
        .<Election.Holder>map(r -> new Election.Holder.Ours(r, raw))
        .orElse(new Election.Holder.Foreign(raw));
  }

  private LeaderGroupStatus status(
      LeaderGroup group, ElectionState state, Integer ready, Conditions conditions) {
    LeaderGroupStatus s = new LeaderGroupStatus();
    s.setLeader(state.holder == null ? "" : state.holder.pod());
    s.setLeaderUID(state.holder == null ? "" : state.holder.uid());
    s.setTerm(state.maxTerm > 0 ? state.maxTerm : null);
    s.setReservedTerm(state.reserved > 0 ? state.reserved : null);
    s.setLeaderSince(state.holder == null || state.leaderSince == null ? "" : state.leaderSince);
    s.setCandidates(ready == null ? 0 : ready);
    s.setObservedGeneration(group.getMetadata().getGeneration());
    s.setConditions(conditions.build());
    return s;
  }

  private UpdateControl<LeaderGroup> finish(
      LeaderGroup group, LeaderGroupStatus old, LeaderGroupStatus next, Duration reschedule) {
    var written = statusWriter.write(group, next, LeaderGroupReconciler::keepReservation);
    ElectionState state = states.get(ResourceID.fromResource(group));
    if (written != null && state != null) {
      state.reserved = Math.max(state.reserved, reservedTerm(written.after()));
    }
    liveness.progressed(reschedule);
    UpdateControl<LeaderGroup> control = UpdateControl.noUpdate();
    return reschedule == null ? control : control.rescheduleAfter(reschedule);
  }

  private void reportOnce(LeaderGroup group, ElectionState state, EventReason reason,
      String message) {
    if (!message.equals(state.lastProblem)) {
      state.lastProblem = message;
      log.warn("LeaderGroup {}/{}: {}", group.getMetadata().getNamespace(),
          group.getMetadata().getName(), message);
      events.record(group, reason, message);
    }
  }

  @Override
  public DeleteControl cleanup(LeaderGroup group, Context<LeaderGroup> context) {
    String ns = group.getMetadata().getNamespace();
    String name = group.getMetadata().getName();
    ResourceID id = ResourceID.fromResource(group);
    ElectionState state = states.remove(id);
    renewer.forget(id);
    String roleLabel =
        group.getSpec() == null || group.getSpec().getRoleLabel() == null
            ? LeaderGroupSpec.DEFAULT_ROLE_LABEL
            : group.getSpec().getRoleLabel();
    // Labels first, then the lease: a pod never carries the leader label without a lease.
    pods.byIndex(BY_GROUP, ns + "/" + name).forEach(p -> labeler.clear(p, roleLabel));
    if (state != null && state.holder != null) {
      try {
        leaseStore(group).release(GroupSettings.of(group).keys(), state.holder.encode());
      } catch (RuntimeException e) {
        log.info("LeaderGroup {}/{} deleted; its lease is left to expire: {}", ns, name,
            e.getMessage());
      }
    }
    metrics.forgetGroup(ns, name);
    return DeleteControl.defaultDelete();
  }

  private static String conflictMessage(Map<String, String> conflicts, String roleLabel) {
    Map<String, List<String>> byGroup = new java.util.TreeMap<>();
    conflicts.forEach((pod, g) -> byGroup.computeIfAbsent(g, k -> new java.util.ArrayList<>())
        .add(pod));
    StringBuilder sb = new StringBuilder();
    byGroup.forEach((g, podNames) -> sb.append(sb.length() == 0 ? "" : "; ")
        .append("pods ").append(String.join(", ", podNames.stream().sorted().toList()))
        .append(" are claimed by LeaderGroup ").append(g)
        .append(" with the same roleLabel ").append(roleLabel)
        .append(" and are left alone"));
    return sb.toString();
  }

  private static String describeChange(EventReason reason, String previous) {
    if (previous == null) {
      return "";
    }
    return switch (reason) {
      case LeaderDeleted -> " (" + previous + " is gone)";
      case LeaderNotReady -> " (" + previous + " is not ready)";
      case LeaderTerminating -> " (" + previous + " is terminating)";
      case LeaderNodeLost -> " (the node of " + previous + " is not ready)";
      case Switchover -> " (switchover from " + previous + ")";
      case LeaseExpired -> " (the lease of " + previous + " expired)";
      default -> "";
    };
  }

  private static String annotation(LeaderGroup g, String key) {
    var a = g.getMetadata().getAnnotations();
    String v = a == null ? null : a.get(key);
    return v == null || v.isBlank() ? null : v.trim();
  }

  private static String now() {
    return Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
  }

  /**
   * Compares the three views of invariant 8 and raises SplitBrainSuspected when they have disagreed
   * for longer than one renew interval. Our own label writes reach the informer a moment later, so
   * a fresh disagreement is only re-checked, after one interval, not reported.
   */
  private Duration checkViews(
      LeaderGroup group, ElectionState state, GroupSettings settings, Membership membership,
      Conditions conditions) {
    String ns = group.getMetadata().getNamespace();
    Set<String> labeled = new HashSet<>();
    for (Pod p : membership.members()) {
      if (BatonNames.LEADER.equals(PodLabeler.label(p, settings.roleLabel()))) {
        labeled.add(p.getMetadata().getName());
      }
    }
    String holder = state.holder == null ? null : state.holder.pod();
    String disagreement = new ThreeViews(holder, labeled,
        routedPods(ns, settings.roleLabel(), membership.members())).disagreement();
    long now = System.nanoTime();
    if (disagreement == null) {
      state.viewsDisagreeSince = 0;
      conditions.set(ConditionType.SplitBrainSuspected, false, "ViewsAgree",
          "Redis, the pod labels and the leader Service endpoints agree");
      metrics.splitBrain(ns, group.getMetadata().getName(), false);
      return resync(settings);
    }
    if (state.viewsDisagreeSince == 0) {
      state.viewsDisagreeSince = now;
    }
    if (now - state.viewsDisagreeSince > settings.renewInterval().toNanos()) {
      String message = disagreement + " (for more than " + settings.renewInterval().toMillis()
          + " ms)";
      if (!Conditions.isTrue(group.getStatus() == null ? null
          : group.getStatus().getConditions(), ConditionType.SplitBrainSuspected)) {
        log.warn("LeaderGroup {}/{}: split brain suspected: {}", ns,
            group.getMetadata().getName(), message);
        events.record(group, EventReason.SplitBrainSuspected, message);
      }
      conditions.set(ConditionType.SplitBrainSuspected, true, "ViewsDisagree", message);
      metrics.splitBrain(ns, group.getMetadata().getName(), true);
    } else {
      conditions.keep(ConditionType.SplitBrainSuspected);
    }
    return settings.renewInterval();
  }

  /**
   * The safety-net timer: events and the renewer drive everything, so this only catches what no
   * event announced. Twenty renew intervals, at least 60 s, at most 10 min.
   */
  private static Duration resync(GroupSettings settings) {
    long nanos = settings.renewInterval().toNanos() * 20;
    return Duration.ofNanos(Math.min(Math.max(nanos, Duration.ofSeconds(60).toNanos()),
        Duration.ofMinutes(10).toNanos()));
  }

  /** Stops the renewer; the leases then expire by their TTL unless another replica renews them. */
  public void close() {
    renewer.close();
  }

  private static Duration backoff(int failures) {
    long ms = 200L << Math.min(failures, 8);
    return Duration.ofMillis(Math.min(ms, MAX_BACKOFF.toMillis()));
  }
}
