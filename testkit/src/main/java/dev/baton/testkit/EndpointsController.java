package dev.baton.testkit;

import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPort;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointPortBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;

/**
 * What kube-controller-manager's EndpointSlice controller does and the mock API server does not:
 * keeps one EndpointSlice per Service with a selector, listing the ready pods it matches. It acts
 * on pod and Service watch events (and every 500 ms in case a watch dropped), so in the mock the
 * label-to-slice hop costs about what the real controller's does before kube-proxy; Services
 * without a selector are left to whoever writes their slices, as the real controller leaves them.
 * While paused, slices go stale, as they do when the controller lags.
 */
public final class EndpointsController implements AutoCloseable {

  /** The real controller's managed-by value: slices with another value are not its own. */
  public static final String MANAGED_BY = "endpointslice-controller.k8s.io";

  private final KubernetesClient client;
  private final String namespace;
  private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
  private final AtomicBoolean syncQueued = new AtomicBoolean();
  private final List<Watch> watches;
  private volatile boolean paused;

  public EndpointsController(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
    this.watches =
        List.of(
            client.pods().inNamespace(namespace).watch(new Nudge<>()),
            client.services().inNamespace(namespace).watch(new Nudge<>()));
    loop.scheduleWithFixedDelay(this::sync, 0, 500, TimeUnit.MILLISECONDS);
  }

  public void pause(boolean paused) {
    this.paused = paused;
    if (!paused) {
      nudge();
    }
  }

  private void nudge() {
    if (syncQueued.compareAndSet(false, true)) {
      loop.execute(
          () -> {
            syncQueued.set(false);
            sync();
          });
    }
  }

  private final class Nudge<T> implements Watcher<T> {
    @Override
    public void eventReceived(Action action, T resource) {
      nudge();
    }

    @Override
    public void onClose(WatcherException cause) {
      // the periodic sync carries on
    }
  }

  private void sync() {
    if (paused) {
      return;
    }
    try {
      List<Pod> pods = client.pods().inNamespace(namespace).list().getItems();
      for (Service svc : client.services().inNamespace(namespace).list().getItems()) {
        Map<String, String> selector = svc.getSpec().getSelector();
        if (selector == null || selector.isEmpty()) {
          continue;
        }
        Map<List<EndpointPort>, List<Endpoint>> byPorts = new LinkedHashMap<>();
        pods.stream()
            .filter(
                p ->
                    p.getMetadata().getLabels() != null
                        && p.getMetadata().getLabels().entrySet().containsAll(selector.entrySet()))
            .filter(EndpointsController::ready)
            .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
            .forEach(
                p ->
                    byPorts
                        .computeIfAbsent(ports(svc, p), k -> new ArrayList<>())
                        .add(endpoint(p)));
        if (byPorts.isEmpty()) {
          byPorts.put(List.of(), List.of());
        }
        List<String> written = new ArrayList<>();
        for (var slice : byPorts.entrySet()) {
          String name =
              svc.getMetadata().getName()
                  + "-slice"
                  + (written.isEmpty() ? "" : "-" + written.size());
          write(svc, name, slice);
          written.add(name);
        }
        // Pods that resolve the ports another way got a slice of their own; one gone goes.
        client
            .discovery()
            .v1()
            .endpointSlices()
            .inNamespace(namespace)
            .withLabel("kubernetes.io/service-name", svc.getMetadata().getName())
            .withLabel("endpointslice.kubernetes.io/managed-by", MANAGED_BY)
            .list()
            .getItems()
            .stream()
            .filter(es -> !written.contains(es.getMetadata().getName()))
            .forEach(es -> client.resource(es).delete());
      }
    } catch (RuntimeException e) {
      // the next round tries again, as the real controller would
    }
  }

  private static boolean ready(Pod p) {
    return p.getStatus() != null
        && p.getStatus().getConditions() != null
        && p.getStatus().getConditions().stream()
            .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
  }

  private Endpoint endpoint(Pod p) {
    return new EndpointBuilder()
        .withAddresses(p.getStatus().getPodIP() == null ? "10.0.0.1" : p.getStatus().getPodIP())
        .withNewConditions()
        .withReady(true)
        .endConditions()
        .withTargetRef(
            new ObjectReferenceBuilder()
                .withKind("Pod")
                .withName(p.getMetadata().getName())
                .withNamespace(namespace)
                .build())
        .build();
  }

  /**
   * The Service's ports as this pod resolves them, as the controller of Kubernetes 1.29 to 1.32
   * does: a numeric targetPort as it is, a named one against the ports of the pod's containers, not
   * its init containers, so a port declared only on a native sidecar is not resolved
   * (kubernetes#128850). A port that does not resolve is left out; none resolved leaves the slice's
   * ports null, and kube-proxy then rejects every connection to the Service.
   */
  public static List<EndpointPort> ports(Service svc, Pod pod) {
    List<EndpointPort> out = new ArrayList<>();
    for (ServicePort port :
        svc.getSpec().getPorts() == null ? List.<ServicePort>of() : svc.getSpec().getPorts()) {
      IntOrString target = port.getTargetPort();
      Integer number;
      if (target == null) {
        number = port.getPort();
      } else if (target.getIntVal() != null) {
        number = target.getIntVal();
      } else {
        number =
            pod.getSpec() == null || pod.getSpec().getContainers() == null
                ? null
                : pod.getSpec().getContainers().stream()
                    .flatMap(c -> c.getPorts() == null ? Stream.empty() : c.getPorts().stream())
                    .filter(cp -> target.getStrVal().equals(cp.getName()))
                    .map(ContainerPort::getContainerPort)
                    .findFirst()
                    .orElse(null);
      }
      if (number != null) {
        out.add(
            new EndpointPortBuilder()
                .withName(port.getName() == null ? "" : port.getName())
                .withPort(number)
                .withProtocol(port.getProtocol() == null ? "TCP" : port.getProtocol())
                .build());
      }
    }
    return out;
  }

  private void write(
      Service svc, String name, Map.Entry<List<EndpointPort>, List<Endpoint>> slice) {
    List<EndpointPort> ports = slice.getKey().isEmpty() ? null : slice.getKey();
    List<Endpoint> endpoints = slice.getValue();
    EndpointSlice current =
        client.discovery().v1().endpointSlices().inNamespace(namespace).withName(name).get();
    if (current != null
        && Objects.equals(current.getEndpoints(), endpoints)
        && Objects.equals(emptyToNull(current.getPorts()), ports)) {
      return;
    }
    var slices = client.discovery().v1().endpointSlices().inNamespace(namespace);
    if (current == null) {
      slices
          .resource(
              new EndpointSliceBuilder()
                  .withNewMetadata()
                  .withName(name)
                  .withNamespace(namespace)
                  .addToLabels("kubernetes.io/service-name", svc.getMetadata().getName())
                  .addToLabels("endpointslice.kubernetes.io/managed-by", MANAGED_BY)
                  .endMetadata()
                  .withAddressType("IPv4")
                  .withEndpoints(endpoints)
                  .withPorts(ports)
                  .build())
          .create();
    } else {
      current.setEndpoints(endpoints);
      current.setPorts(ports);
      slices.resource(current).update();
    }
  }

  private static <T> List<T> emptyToNull(List<T> list) {
    return list == null || list.isEmpty() ? null : list;
  }

  @Override
  public void close() {
    watches.forEach(Watch::close);
    loop.shutdownNow();
  }
}
