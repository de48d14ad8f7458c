package dev.baton.testkit;

import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

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
        List<Endpoint> endpoints =
            pods.stream()
                .filter(
                    p ->
                        p.getMetadata().getLabels() != null
                            && p.getMetadata()
                                .getLabels()
                                .entrySet()
                                .containsAll(selector.entrySet()))
                .filter(
                    p ->
                        p.getStatus() != null
                            && p.getStatus().getConditions() != null
                            && p.getStatus().getConditions().stream()
                                .anyMatch(
                                    c ->
                                        c.getType().equals("Ready")
                                            && c.getStatus().equals("True")))
                .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
                .map(
                    p ->
                        new EndpointBuilder()
                            .withAddresses(
                                p.getStatus().getPodIP() == null
                                    ? "10.0.0.1"
                                    : p.getStatus().getPodIP())
                            .withNewConditions()
                            .withReady(true)
                            .endConditions()
                            .withTargetRef(
                                new ObjectReferenceBuilder()
                                    .withKind("Pod")
                                    .withName(p.getMetadata().getName())
                                    .withNamespace(namespace)
                                    .build())
                            .build())
                .toList();
        String name = svc.getMetadata().getName() + "-slice";
        EndpointSlice current =
            client.discovery().v1().endpointSlices().inNamespace(namespace).withName(name).get();
        if (current != null && Objects.equals(current.getEndpoints(), endpoints)) {
          continue;
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
                      .build())
              .create();
        } else {
          current.setEndpoints(endpoints);
          slices.resource(current).update();
        }
      }
    } catch (RuntimeException e) {
      // the next round tries again, as the real controller would
    }
  }

  @Override
  public void close() {
    watches.forEach(Watch::close);
    loop.shutdownNow();
  }
}
