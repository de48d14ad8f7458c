package dev.baton.operator.testing;

import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.discovery.v1.Endpoint;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSliceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What kube-controller-manager does and the mock API server does not: keeps one EndpointSlice per
 * Service listing the ready pods its selector matches. Polls every 50 ms; while paused, slices go
 * stale, as they do when the endpoints controller lags.
 */
public final class EndpointsController implements AutoCloseable {

  private final KubernetesClient client;
  private final String namespace;
  private final ScheduledExecutorService loop = Executors.newSingleThreadScheduledExecutor();
  private volatile boolean paused;

  public EndpointsController(KubernetesClient client, String namespace) {
    this.client = client;
    this.namespace = namespace;
    loop.scheduleWithFixedDelay(this::sync, 0, 50, TimeUnit.MILLISECONDS);
  }

  public void pause(boolean paused) {
    this.paused = paused;
  }

  private void sync() {
    if (paused) {
      return;
    }
    try {
      List<Pod> pods = client.pods().inNamespace(namespace).list().getItems();
      for (Service svc : client.services().inNamespace(namespace).list().getItems()) {
        Map<String, String> selector = svc.getSpec().getSelector();
        List<Endpoint> endpoints =
            pods.stream()
                .filter(
                    p ->
                        selector != null
                            && p.getMetadata().getLabels() != null
                            && p.getMetadata()
                                .getLabels()
                                .entrySet()
                                .containsAll(selector.entrySet()))
                .filter(
                    p ->
                        p.getStatus().getConditions().stream()
                            .anyMatch(
                                c -> c.getType().equals("Ready") && c.getStatus().equals("True")))
                .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
                .map(
                    p ->
                        new EndpointBuilder()
                            .withAddresses("10.0.0.1")
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
    loop.shutdownNow();
  }
}
