package dev.baton.operator.routing;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderService;
import dev.baton.api.v1alpha1.LeaderServicePort;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.ServicePortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * The one-write routing mode (spec.service): a Service without a selector that the group owns, and
 * one EndpointSlice that Baton writes itself with the leader pod's address. A leader change is one
 * JSON Patch that replaces the endpoint list, so the old leader's endpoint is replaced, never
 * joined, and the EndpointSlice controller is not in the path.
 */
public final class LeaderEndpoints {

  /** The label that tells the EndpointSlice controller this slice is not its own. */
  public static final String MANAGED_BY_LABEL = "endpointslice.kubernetes.io/managed-by";

  public static final String MANAGED_BY = "baton.dev";
  public static final String SERVICE_NAME_LABEL = "kubernetes.io/service-name";
  public static final String GROUP_LABEL = "baton.dev/group";

  /** What the informers show of the objects this writes. */
  public interface Cache {
    Optional<Service> service(String namespace, String name);

    Optional<EndpointSlice> slice(String namespace, String name);

    /** Services in the namespace whose owner reference names this group's uid. */
    List<Service> servicesOwnedBy(String namespace, String groupUid);
  }

  private final KubernetesClient client;
  private final Cache cache;

  public LeaderEndpoints(KubernetesClient client, Cache cache) {
    this.client = client;
    this.cache = cache;
  }

  public static String sliceName(String service) {
    return service + "-baton";
  }

  /**
   * Makes the Service and its slice name the leader (or nobody), and deletes Services this group
   * owned under another name (spec.service renamed or removed).
   *
   * @param leader the leader pod, or null when nobody leads
   * @param leaderReady whether its endpoint is ready (false while a failover is damped)
   * @return a problem to report, or null
   */
  public String apply(LeaderGroup group, LeaderService spec, Pod leader, boolean leaderReady) {
    String ns = group.getMetadata().getNamespace();
    String uid = group.getMetadata().getUid();
    for (Service owned : cache.servicesOwnedBy(ns, uid)) {
      if (spec == null || !owned.getMetadata().getName().equals(spec.getName())) {
        delete(ns, owned.getMetadata().getName());
      }
    }
    if (spec == null) {
      return null;
    }
    Service svc = cache.service(ns, spec.getName()).orElse(null);
    if (svc != null && !ownedBy(svc, uid)) {
      return "Service "
          + spec.getName()
          + " exists and is not owned by this LeaderGroup; Baton leaves it alone";
    }
    svc = svc == null ? createService(group, spec) : withPorts(svc, spec);
    Desired desired = desiredSlice(spec, leader, leaderReady);
    EndpointSlice current = cache.slice(ns, sliceName(spec.getName())).orElse(null);
    if (current == null
        || !Objects.equals(current.getAddressType(), desired.addressType)
        || !Objects.equals(current.getEndpoints(), desired.endpoints)
        || !Objects.equals(current.getPorts(), desired.ports)) {
      writeSlice(group, svc, spec.getName(), desired, current);
    }
    return desired.problem;
  }

  /** The Service with spec.service's ports: patched when it has others. */
  private Service withPorts(Service svc, LeaderService spec) {
    if (Objects.equals(svc.getSpec().getPorts(), servicePorts(spec))) {
      return svc;
    }
    return client
        .services()
        .resource(svc)
        .patch(
            PatchContext.of(PatchType.JSON),
            Serialization.asJson(List.of(replace("/spec/ports", servicePorts(spec)))));
  }

  /**
   * Creates the slice, or replaces its endpoints and ports in one patch.
   *
   * @param current the slice as the cache shows it, or null
   */
  private void writeSlice(
      LeaderGroup group, Service svc, String service, Desired desired, EndpointSlice current) {
    var slices =
        client.discovery().v1().endpointSlices().inNamespace(group.getMetadata().getNamespace());
    if (current != null && !Objects.equals(current.getAddressType(), desired.addressType)) {
      // The address type cannot change: the slice is replaced (IPv4 to IPv6 leaders only).
      slices.withName(current.getMetadata().getName()).delete();
      current = null;
    }
    if (current == null) {
      try {
        slices.resource(newSlice(group, svc, desired)).create();
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != 409) {
          throw e;
        }
      }
    }
    // Through the slice in hand: by name alone, the client would GET it before patching.
    EndpointSlice target = current != null ? current : slices.withName(sliceName(service)).get();
    slices
        .resource(target)
        .patch(
            PatchContext.of(PatchType.JSON),
            Serialization.asJson(
                List.of(
                    replace("/endpoints", desired.endpoints), replace("/ports", desired.ports))));
  }

  /**
   * A JSON Patch "add", which replaces the member when it exists: the whole list is swapped in one
   * operation, never merged element by element.
   */
  private static Map<String, Object> replace(String path, Object value) {
    Map<String, Object> op = new LinkedHashMap<>();
    op.put("op", "add");
    op.put("path", path);
    op.put("value", value);
    return op;
  }

  /** Deletes what this group owns: its Service and slice (its owner references do it too). */
  public void forget(LeaderGroup group) {
    String ns = group.getMetadata().getNamespace();
    for (Service owned : cache.servicesOwnedBy(ns, group.getMetadata().getUid())) {
      delete(ns, owned.getMetadata().getName());
    }
  }

  private void delete(String ns, String service) {
    client.discovery().v1().endpointSlices().inNamespace(ns).withName(sliceName(service)).delete();
    client.services().inNamespace(ns).withName(service).delete();
  }

  private Service createService(LeaderGroup group, LeaderService spec) {
    Service svc =
        new ServiceBuilder()
            .withNewMetadata()
            .withName(spec.getName())
            .withNamespace(group.getMetadata().getNamespace())
            .addToLabels(GROUP_LABEL, group.getMetadata().getName())
            .addToLabels("app.kubernetes.io/managed-by", "baton")
            .withOwnerReferences(ownerOf(group))
            .endMetadata()
            .withNewSpec()
            .withType("ClusterIP")
            .withPorts(servicePorts(spec))
            .endSpec()
            .build();
    try {
      return client
          .services()
          .inNamespace(group.getMetadata().getNamespace())
          .resource(svc)
          .create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      // Created a moment ago, not yet in the cache.
      Service existing =
          client
              .services()
              .inNamespace(group.getMetadata().getNamespace())
              .withName(spec.getName())
              .get();
      if (existing == null || !ownedBy(existing, group.getMetadata().getUid())) {
        throw new IllegalStateException(
            "Service " + spec.getName() + " exists and is not owned by this LeaderGroup");
      }
      return existing;
    }
  }

  static List<ServicePort> servicePorts(LeaderService spec) {
    List<ServicePort> out = new ArrayList<>();
    for (LeaderServicePort p : spec.getPorts()) {
      out.add(
          new ServicePortBuilder()
              .withName(p.getName())
              .withPort(p.getPort())
              .withTargetPort(
                  p.getTargetPort() == null ? new IntOrString(p.getPort()) : p.getTargetPort())
              .withProtocol(p.getProtocol() == null ? "TCP" : p.getProtocol())
              .build());
    }
    return out;
  }

  /** The slice's content; problem says which port could not be resolved on the leader pod. */
  record Desired(
      String addressType, List<Endpoint> endpoints, List<EndpointPort> ports, String problem) {}

  static Desired desiredSlice(LeaderService spec, Pod leader, boolean leaderReady) {
    String ip = leader == null || leader.getStatus() == null ? null : leader.getStatus().getPodIP();
    String addressType = ip != null && ip.contains(":") ? "IPv6" : "IPv4";
    List<Endpoint> endpoints = new ArrayList<>();
    if (ip != null && !ip.isEmpty()) {
      endpoints.add(
          new EndpointBuilder()
              .withAddresses(ip)
              .withNewConditions()
              .withReady(leaderReady)
              .withServing(leaderReady)
              .withTerminating(false)
              .endConditions()
              .withNodeName(leader.getSpec() == null ? null : leader.getSpec().getNodeName())
              .withNewTargetRef()
              .withKind("Pod")
              .withNamespace(leader.getMetadata().getNamespace())
              .withName(leader.getMetadata().getName())
              .withUid(leader.getMetadata().getUid())
              .endTargetRef()
              .build());
    }
    List<EndpointPort> ports = new ArrayList<>();
    List<String> unresolved = new ArrayList<>();
    for (LeaderServicePort p : spec.getPorts()) {
      Integer port = targetPort(p, leader);
      if (port == null) {
        unresolved.add(p.getTargetPort().getStrVal());
        continue;
      }
      ports.add(
          new EndpointPortBuilder()
              .withName(p.getName() == null ? "" : p.getName())
              .withPort(port)
              .withProtocol(p.getProtocol() == null ? "TCP" : p.getProtocol())
              .build());
    }
    String problem =
        unresolved.isEmpty() || leader == null
            ? null
            : "the leader "
                + leader.getMetadata().getName()
                + " has no container port named "
                + String.join(", ", unresolved);
    return new Desired(addressType, endpoints, ports, problem);
  }

  /** A number, or a container port of the leader by name; null when the name is not there. */
  private static Integer targetPort(LeaderServicePort p, Pod leader) {
    IntOrString target = p.getTargetPort();
    if (target == null) {
      return p.getPort();
    }
    if (target.getIntVal() != null) {
      return target.getIntVal();
    }
    if (leader == null || leader.getSpec() == null || leader.getSpec().getContainers() == null) {
      return null;
    }
    String protocol = p.getProtocol() == null ? "TCP" : p.getProtocol();
    return leader.getSpec().getContainers().stream()
        .filter(c -> c.getPorts() != null)
        .flatMap(c -> c.getPorts().stream())
        .filter(cp -> target.getStrVal().equals(cp.getName()))
        .filter(cp -> protocol.equals(cp.getProtocol() == null ? "TCP" : cp.getProtocol()))
        .map(ContainerPort::getContainerPort)
        .findFirst()
        .orElse(null);
  }

  private static EndpointSlice newSlice(LeaderGroup group, Service svc, Desired desired) {
    return new EndpointSliceBuilder()
        .withNewMetadata()
        .withName(sliceName(svc.getMetadata().getName()))
        .withNamespace(svc.getMetadata().getNamespace())
        .addToLabels(SERVICE_NAME_LABEL, svc.getMetadata().getName())
        .addToLabels(MANAGED_BY_LABEL, MANAGED_BY)
        .addToLabels(GROUP_LABEL, group.getMetadata().getName())
        .withOwnerReferences(
            new OwnerReferenceBuilder()
                .withApiVersion("v1")
                .withKind("Service")
                .withName(svc.getMetadata().getName())
                .withUid(svc.getMetadata().getUid())
                .withController(true)
                .build())
        .endMetadata()
        .withAddressType(desired.addressType)
        .withEndpoints(desired.endpoints)
        .withPorts(desired.ports)
        .build();
  }

  /**
   * No blockOwnerDeletion: setting it needs the right to update the owner's finalizers, and nothing
   * here must outlive the group anyway.
   */
  private static OwnerReference ownerOf(LeaderGroup group) {
    return new OwnerReferenceBuilder()
        .withApiVersion(
            group.getApiVersion() == null ? "baton.dev/v1alpha1" : group.getApiVersion())
        .withKind("LeaderGroup")
        .withName(group.getMetadata().getName())
        .withUid(group.getMetadata().getUid())
        .withController(true)
        .build();
  }

  public static boolean ownedBy(Service svc, String groupUid) {
    return svc.getMetadata().getOwnerReferences() != null
        && svc.getMetadata().getOwnerReferences().stream()
            .anyMatch(o -> "LeaderGroup".equals(o.getKind()) && groupUid.equals(o.getUid()));
  }
}
