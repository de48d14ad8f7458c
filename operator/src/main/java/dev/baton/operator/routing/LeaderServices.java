package dev.baton.operator.routing;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.client.BatonNames;
import dev.baton.operator.kube.Metadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.javaoperatorsdk.operator.api.config.informer.InformerEventSourceConfiguration;
import io.javaoperatorsdk.operator.api.reconciler.EventSourceContext;
import io.javaoperatorsdk.operator.processing.event.ResourceID;
import io.javaoperatorsdk.operator.processing.event.source.EventSource;
import io.javaoperatorsdk.operator.processing.event.source.informer.InformerEventSource;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The Services and EndpointSlices that route to leaders, as the LeaderGroup controller's informers
 * cache them: the third view of docs/design.md ("Three views agree"), read by the routing check and
 * the split-brain check, and the cache {@link LeaderEndpoints} writes against. Empty until {@link
 * #eventSources} has created the informers.
 */
public final class LeaderServices implements LeaderEndpoints.Cache {

  private static final String SERVICE_NAME_LABEL = LeaderEndpoints.SERVICE_NAME_LABEL;

  /** Service index: namespace/uid of the LeaderGroup that owns it (spec.service). */
  private static final String BY_OWNER = "owner";

  private volatile InformerEventSource<Service, LeaderGroup> services;
  private volatile InformerEventSource<EndpointSlice, LeaderGroup> endpointSlices;

  /**
   * The informers of Services and EndpointSlices, each event mapped to the groups that {@code
   * groupsRoutedBy} the Service (for a slice, the Service it belongs to).
   */
  public List<EventSource<?, LeaderGroup>> eventSources(
      EventSourceContext<LeaderGroup> context, Function<Service, Set<ResourceID>> groupsRoutedBy) {
    services =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(Service.class, LeaderGroup.class)
                .withName("services")
                .withSecondaryToPrimaryMapper(groupsRoutedBy::apply)
                .withNamespacesInheritedFromController()
                .build(),
            context);
    services.addIndexers(
        Map.of(
            BY_OWNER,
            svc ->
                svc.getMetadata().getOwnerReferences() == null
                    ? List.of()
                    : svc.getMetadata().getOwnerReferences().stream()
                        .filter(o -> "LeaderGroup".equals(o.getKind()))
                        .map(o -> svc.getMetadata().getNamespace() + "/" + o.getUid())
                        .toList()));
    endpointSlices =
        new InformerEventSource<>(
            InformerEventSourceConfiguration.from(EndpointSlice.class, LeaderGroup.class)
                .withName("endpointslices")
                .withSecondaryToPrimaryMapper(
                    slice -> serviceOf(slice).map(groupsRoutedBy).orElse(Set.of()))
                .withNamespacesInheritedFromController()
                .build(),
            context);
    return List.of(services, endpointSlices);
  }

  private Optional<Service> serviceOf(EndpointSlice slice) {
    String name = Metadata.label(slice, SERVICE_NAME_LABEL);
    if (name == null || services == null) {
      return Optional.empty();
    }
    return services.get(new ResourceID(name, slice.getMetadata().getNamespace()));
  }

  /**
   * The pods behind this group's leader Services: Services that select its role label with the
   * value leader and whose other selector labels select at least one member. Null when none.
   */
  public Set<String> routedPods(String ns, String roleLabel, List<Pod> members) {
    if (services == null || endpointSlices == null) {
      return null;
    }
    List<Service> leaderServices =
        services
            .list(
                ns,
                svc -> {
                  Map<String, String> sel = leaderSelector(svc, roleLabel);
                  return sel != null && selectsAMember(sel, roleLabel, members);
                })
            .toList();
    if (leaderServices.isEmpty()) {
      return null;
    }
    Set<String> names = new HashSet<>();
    for (Service svc : leaderServices) {
      endpointsOf(ns, svc.getMetadata().getName()).stream()
          .filter(RouteCheck.Endpoint::ready)
          .forEach(ep -> names.add(ep.pod()));
    }
    return names;
  }

  /**
   * The Services that route to this group's leader, with their endpoints: those selecting its role
   * label with the value leader whose other selector labels select a member or repeat one of the
   * group's own matchLabels (so a Service that excludes the leader by an extra label is still
   * reported), and the Service of spec.service.
   */
  public List<RouteCheck.LeaderService> leaderServices(
      LeaderGroup group, String roleLabel, List<Pod> members) {
    if (services == null || endpointSlices == null) {
      return List.of();
    }
    String ns = group.getMetadata().getNamespace();
    Map<String, String> groupLabels = group.getSpec().getSelector().getMatchLabels();
    List<RouteCheck.LeaderService> out = new ArrayList<>();
    services
        .list(
            ns,
            svc -> {
              Map<String, String> sel = leaderSelector(svc, roleLabel);
              if (sel == null) {
                return false;
              }
              boolean namesGroup =
                  groupLabels != null
                      && sel.entrySet().stream()
                          .anyMatch(e -> e.getValue().equals(groupLabels.get(e.getKey())));
              return namesGroup || selectsAMember(sel, roleLabel, members);
            })
        .forEach(
            svc ->
                out.add(
                    new RouteCheck.LeaderService(
                        svc.getMetadata().getName(),
                        svc.getSpec().getSelector(),
                        endpointsOf(ns, svc.getMetadata().getName()),
                        portNames(svc))));
    var own = group.getSpec().getService();
    if (own != null) {
      service(ns, own.getName())
          .filter(svc -> LeaderEndpoints.ownedBy(svc, group.getMetadata().getUid()))
          .ifPresent(
              svc ->
                  out.add(
                      new RouteCheck.LeaderService(
                          svc.getMetadata().getName(),
                          null,
                          endpointsOf(ns, own.getName()),
                          portNames(svc))));
    }
    return out;
  }

  /** The Service's selector when it selects the role label with the value leader, else null. */
  private static Map<String, String> leaderSelector(Service svc, String roleLabel) {
    Map<String, String> sel = svc.getSpec() == null ? null : svc.getSpec().getSelector();
    return sel != null && BatonNames.LEADER.equals(sel.get(roleLabel)) ? sel : null;
  }

  /** Whether the selector's labels other than the role label select one of the members. */
  private static boolean selectsAMember(
      Map<String, String> selector, String roleLabel, List<Pod> members) {
    return members.stream()
        .anyMatch(
            p ->
                selector.entrySet().stream()
                    .filter(e -> !e.getKey().equals(roleLabel))
                    .allMatch(e -> e.getValue().equals(Metadata.label(p, e.getKey()))));
  }

  private List<RouteCheck.Endpoint> endpointsOf(String ns, String service) {
    List<RouteCheck.Endpoint> out = new ArrayList<>();
    endpointSlices
        .list(ns, slice -> service.equals(Metadata.label(slice, SERVICE_NAME_LABEL)))
        .forEach(
            slice -> {
              if (slice.getEndpoints() == null) {
                return;
              }
              Set<String> ports =
                  slice.getPorts() == null
                      ? Set.of()
                      : slice.getPorts().stream()
                          .map(p -> p.getName() == null ? "" : p.getName())
                          .collect(Collectors.toSet());
              slice.getEndpoints().stream()
                  .filter(
                      ep -> ep.getTargetRef() != null && "Pod".equals(ep.getTargetRef().getKind()))
                  .forEach(
                      ep ->
                          out.add(
                              new RouteCheck.Endpoint(
                                  ep.getTargetRef().getName(),
                                  ep.getConditions() == null
                                      || !Boolean.FALSE.equals(ep.getConditions().getReady()),
                                  ports)));
            });
    return out;
  }

  /** The names of a Service's ports, "" for an unnamed one. */
  private static List<String> portNames(Service svc) {
    return svc.getSpec() == null || svc.getSpec().getPorts() == null
        ? List.of()
        : svc.getSpec().getPorts().stream()
            .map(p -> p.getName() == null ? "" : p.getName())
            .toList();
  }

  @Override
  public Optional<Service> service(String namespace, String name) {
    return services == null ? Optional.empty() : services.get(new ResourceID(name, namespace));
  }

  @Override
  public Optional<EndpointSlice> slice(String namespace, String name) {
    return endpointSlices == null
        ? Optional.empty()
        : endpointSlices.get(new ResourceID(name, namespace));
  }

  @Override
  public List<Service> servicesOwnedBy(String namespace, String groupUid) {
    return services == null ? List.of() : services.byIndex(BY_OWNER, namespace + "/" + groupUid);
  }
}
