package dev.baton.operator.leadergroup;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.client.BatonNames;
import dev.baton.operator.kube.LabelSelectors;
import dev.baton.operator.kube.Metadata;
import dev.baton.operator.pods.NodeReadiness;
import dev.baton.operator.pods.PodCatalog;
import dev.baton.operator.pods.PodEvents;
import dev.baton.operator.routing.LeaderServices;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.IndexerResourceCache;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What a LeaderGroup watches besides itself: pods (the shared {@link PodCatalog}, by label and by
 * the group that labeled them, so a reconcile costs the size of its group, not of its namespace;
 * only pods some group or lock selects are kept whole), nodes (a node lost moves leadership off
 * it), and the Services and EndpointSlices that route to leaders ({@link LeaderServices}, the third
 * view of docs/design.md, "Three views agree"). Each event is mapped to the groups it concerns.
 */
final class GroupEventSources {

  /**
   * LeaderGroup index: namespace/key=value of the group's first matchLabels pair, or namespace/*
   * for a group without matchLabels. A pod's own labels then name every group that may select it,
   * so mapping a pod event to its groups costs the groups that share a label with it, not every
   * group of the namespace (1,000 groups starting at once would otherwise cost 1,000 selector
   * checks per pod event).
   */
  private static final String BY_SELECTOR = "selector";

  private volatile IndexerResourceCache<LeaderGroup> groups;

  private final PodCatalog pods;

  /** The selector each group had when its compact pods were last reconsidered. */
  private final Map<String, LabelSelector> reconsidered = new ConcurrentHashMap<>();

  private final NodeReadiness<LeaderGroup> nodes = new NodeReadiness<>();
  private final LeaderServices routes = new LeaderServices();

  GroupEventSources(PodCatalog pods) {
    this.pods = pods;
    // A pod a cached group selects is kept whole from its first event on.
    pods.addInterest(
        pod -> {
          IndexerResourceCache<LeaderGroup> g = groups;
          return g != null
              && groupsThatMaySelect(pod, g).stream()
                  .anyMatch(group -> group.getSpec() != null && selects(group, pod));
        });
  }

  List<EventSource<?, LeaderGroup>> prepare(
      EventSourceContext<LeaderGroup> context, LeaseEventSource leases) {
    IndexerResourceCache<LeaderGroup> groups = context.getPrimaryCache();
    groups.addIndexer(BY_SELECTOR, g -> List.of(selectorIndexKey(g)));
    this.groups = groups;
    PodEvents<LeaderGroup> podEvents = new PodEvents<>("pods", pods, pod -> groupsOf(pod, groups));
    var nodeEvents =
        nodes.eventSource(LeaderGroup.class, context, node -> groupsOnNode(node, groups));
    List<EventSource<?, LeaderGroup>> all = new ArrayList<>(List.of(podEvents, nodeEvents));
    all.addAll(routes.eventSources(context, svc -> groupsRoutedBy(svc, groups)));
    all.add(leases);
    return all;
  }

  private static String labelIndexKey(String ns, String key, String value) {
    return ns + "/" + key + "=" + value;
  }

  private static String selectorIndexKey(LeaderGroup g) {
    String ns = g.getMetadata().getNamespace();
    var matchLabels =
        g.getSpec() == null || g.getSpec().getSelector() == null
            ? null
            : g.getSpec().getSelector().getMatchLabels();
    if (matchLabels == null || matchLabels.isEmpty()) {
      return ns + "/*";
    }
    var first = matchLabels.entrySet().iterator().next();
    return labelIndexKey(ns, first.getKey(), first.getValue());
  }

  /**
   * The groups of the pod's namespace that may select it: those whose first matchLabels pair the
   * pod carries, and those without matchLabels. A superset; {@link #selects} decides.
   */
  private static List<LeaderGroup> groupsThatMaySelect(
      Pod pod, IndexerResourceCache<LeaderGroup> groups) {
    String ns = pod.getMetadata().getNamespace();
    List<LeaderGroup> out = new ArrayList<>(groups.byIndex(BY_SELECTOR, ns + "/*"));
    Map<String, String> labels = pod.getMetadata().getLabels();
    if (labels != null) {
      labels.forEach((k, v) -> out.addAll(groups.byIndex(BY_SELECTOR, labelIndexKey(ns, k, v))));
    }
    return out;
  }

  /**
   * The groups that may claim one of these pods: every group a pod's labels could match, each once.
   * What {@link Membership} needs to find the older groups that claim a pod first.
   */
  List<LeaderGroup> groupsThatMaySelect(List<Pod> pods) {
    Map<String, LeaderGroup> byUid = new LinkedHashMap<>();
    for (Pod pod : pods) {
      for (LeaderGroup g : groupsThatMaySelect(pod, groups)) {
        byUid.putIfAbsent(g.getMetadata().getUid(), g);
      }
    }
    return new ArrayList<>(byUid.values());
  }

  /**
   * The pods a group may concern: those carrying its first matchLabels pair (every selected pod
   * does), and those it labeled before. A selector with only matchExpressions lists the namespace.
   */
  List<Pod> podsConcerning(LeaderGroup group) {
    String ns = group.getMetadata().getNamespace();
    seeSelected(group);
    var matchLabels = group.getSpec().getSelector().getMatchLabels();
    if (matchLabels == null || matchLabels.isEmpty()) {
      return pods.inNamespace(ns).toList();
    }
    var first = matchLabels.entrySet().iterator().next();
    List<Pod> out = new ArrayList<>(pods.withLabel(ns, first.getKey(), first.getValue()));
    Set<String> seen = new HashSet<>();
    out.forEach(p -> seen.add(p.getMetadata().getUid()));
    for (Pod p : labeledBy(group)) {
      if (seen.add(p.getMetadata().getUid())) {
        out.add(p);
      }
    }
    return out;
  }

  /**
   * Pods that existed before the pod cache knew this group (or its current selector) are kept in
   * compact form; they become whole before the group first reads them.
   */
  private void seeSelected(LeaderGroup group) {
    LabelSelector selector = group.getSpec().getSelector();
    String uid = group.getMetadata().getUid();
    if (uid == null || selector.equals(reconsidered.get(uid))) {
      return;
    }
    pods.reconsider(group.getMetadata().getNamespace(), labels -> matches(selector, labels));
    reconsidered.put(uid, selector);
  }

  /**
   * The group a pod with these labels would belong to: of the cached groups that select it, the
   * oldest (what {@link Membership} decides for groups of one role label); empty before the cache
   * is ready.
   */
  Optional<LeaderGroup> owner(String namespace, Map<String, String> labels) {
    IndexerResourceCache<LeaderGroup> g = groups;
    if (g == null) {
      return Optional.empty();
    }
    Pod probe = new Pod();
    probe.setMetadata(new ObjectMetaBuilder().withNamespace(namespace).withLabels(labels).build());
    return groupsThatMaySelect(probe, g).stream()
        .filter(
            group -> group.getSpec() != null && group.getMetadata().getDeletionTimestamp() == null)
        .filter(group -> selects(group, probe))
        .min(Membership.SENIORITY);
  }

  /** The group is gone: its selector no longer needs remembering. */
  void forget(LeaderGroup group) {
    if (group.getMetadata().getUid() != null) {
      reconsidered.remove(group.getMetadata().getUid());
    }
  }

  /** The pods that carry this group's annotation: the ones it labeled. */
  List<Pod> labeledBy(LeaderGroup group) {
    return pods.labeledBy(group.getMetadata().getNamespace(), group.getMetadata().getName());
  }

  /**
   * Whether the cache holds a group of this name, deleted or not: its marks on pods are its own.
   */
  boolean holdsGroup(String namespace, String name) {
    IndexerResourceCache<LeaderGroup> g = groups;
    return g != null && g.get(new ResourceID(name, namespace)).isPresent();
  }

  boolean holdsPod(String namespace, String name) {
    return pods.get(namespace, name).isPresent();
  }

  /** Pods that carry the mark of a group this replica's cache does not hold (any more). */
  List<Pod> orphans() {
    if (groups == null) {
      return List.of();
    }
    return pods.all()
        .filter(
            p -> {
              String g = Metadata.annotation(p, BatonNames.GROUP_ANNOTATION);
              return g != null
                  && groups.get(new ResourceID(g, p.getMetadata().getNamespace())).isEmpty();
            })
        .toList();
  }

  /** The groups a pod event concerns: those that select it, and the one it was labeled by. */
  static Set<ResourceID> groupsOf(Pod pod, IndexerResourceCache<LeaderGroup> groups) {
    String ns = pod.getMetadata().getNamespace();
    Set<ResourceID> out = new HashSet<>();
    for (LeaderGroup g : groupsThatMaySelect(pod, groups)) {
      if (g.getSpec() != null && selects(g, pod)) {
        out.add(ResourceID.fromResource(g));
      }
    }
    String labeledBy = Metadata.annotation(pod, BatonNames.GROUP_ANNOTATION);
    if (labeledBy != null) {
      out.add(new ResourceID(labeledBy, ns));
    }
    return out;
  }

  private Set<ResourceID> groupsOnNode(Node node, IndexerResourceCache<LeaderGroup> groups) {
    String name = node.getMetadata().getName();
    Set<ResourceID> out = new HashSet<>();
    pods.all()
        .filter(p -> p.getSpec() != null && name.equals(p.getSpec().getNodeName()))
        .forEach(p -> out.addAll(groupsOf(p, groups)));
    return out;
  }

  /**
   * The groups whose role label the Service selects with the value leader, or the group that owns
   * it (spec.service).
   */
  private static Set<ResourceID> groupsRoutedBy(
      Service svc, IndexerResourceCache<LeaderGroup> groups) {
    Set<ResourceID> out = new HashSet<>();
    if (svc.getMetadata().getOwnerReferences() != null) {
      svc.getMetadata().getOwnerReferences().stream()
          .filter(o -> "LeaderGroup".equals(o.getKind()))
          .forEach(o -> out.add(new ResourceID(o.getName(), svc.getMetadata().getNamespace())));
    }
    Map<String, String> selector = svc.getSpec() == null ? null : svc.getSpec().getSelector();
    if (selector == null) {
      return out;
    }
    groups
        .list(svc.getMetadata().getNamespace())
        .filter(
            g ->
                g.getSpec() != null
                    && BatonNames.LEADER.equals(selector.get(Membership.roleLabelOf(g))))
        .forEach(g -> out.add(ResourceID.fromResource(g)));
    return out;
  }

  /** The Services and EndpointSlices that route to leaders, as cached. */
  LeaderServices routes() {
    return routes;
  }

  boolean nodeLost(String nodeName) {
    return nodes.lost(nodeName);
  }

  private static boolean selects(LeaderGroup g, Pod pod) {
    return matches(g.getSpec().getSelector(), pod.getMetadata().getLabels());
  }

  private static boolean matches(LabelSelector selector, Map<String, String> labels) {
    try {
      return LabelSelectors.matches(selector, labels);
    } catch (IllegalArgumentException invalidSelector) {
      return false;
    }
  }
}
