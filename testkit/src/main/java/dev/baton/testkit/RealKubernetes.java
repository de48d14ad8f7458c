package dev.baton.testkit;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisLock;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A real cluster from a kubeconfig, prepared as the embedded API is: Baton's CRDs applied, and the
 * test namespace emptied of what earlier runs left (finalizers removed first, since no operator may
 * be there to remove them).
 */
public final class RealKubernetes implements KubernetesUnderTest {

  private final Path kubeconfig;
  private final KubernetesClient client;

  private RealKubernetes(Path kubeconfig) {
    this.kubeconfig = kubeconfig;
    this.client = newClient();
  }

  public static RealKubernetes connect(Path kubeconfig) {
    if (!Files.isReadable(kubeconfig)) {
      throw new IllegalStateException(
          KUBECONFIG + " names " + kubeconfig + ", which cannot be read");
    }
    RealKubernetes k = new RealKubernetes(kubeconfig);
    for (String file : EmbeddedKubernetes.CRD_FILES) {
      k.apply(EmbeddedKubernetes.crd(file));
    }
    k.emptyNamespace(Sandbox.NS);
    return k;
  }

  /**
   * Creates or updates a CRD and waits until the API server serves it. A server that reports no
   * conditions at all within two seconds is taken to serve it already.
   */
  private void apply(CustomResourceDefinition crd) {
    var crds = client.apiextensions().v1().customResourceDefinitions();
    crds.resource(crd).unlock().createOr(NonDeletingOperation::update);
    long start = System.nanoTime();
    while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(30)) {
      var status = crds.withName(crd.getMetadata().getName()).get().getStatus();
      boolean anyCondition =
          status != null && status.getConditions() != null && !status.getConditions().isEmpty();
      if (anyCondition
          && status.getConditions().stream()
              .anyMatch(c -> "Established".equals(c.getType()) && "True".equals(c.getStatus()))) {
        return;
      }
      if (!anyCondition && System.nanoTime() - start > TimeUnit.SECONDS.toNanos(2)) {
        return;
      }
      pause();
    }
    throw new IllegalStateException("CRD " + crd.getMetadata().getName() + " is not established");
  }

  private static void pause() {
    try {
      Thread.sleep(200);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  @Override
  public KubernetesClient client() {
    return client;
  }

  @Override
  public KubernetesClient newClient() {
    try {
      Config config = Config.fromKubeconfig(Files.readString(kubeconfig));
      return new KubernetesClientBuilder()
          .withConfig(config)
          .withHttpClientFactory(new JdkHttpClientFactory())
          .build();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public Map<String, String> processEnvironment() {
    return Map.of(
        "KUBECONFIG",
        kubeconfig.toAbsolutePath().toString(),
        "KUBERNETES_AUTH_TRYSERVICEACCOUNT",
        "false");
  }

  @Override
  public boolean real() {
    return true;
  }

  /** Creates the namespace, or deletes what is left in it from an earlier run. */
  private void emptyNamespace(String ns) {
    if (client.namespaces().withName(ns).get() == null) {
      client
          .namespaces()
          .resource(new NamespaceBuilder().withNewMetadata().withName(ns).endMetadata().build())
          .create();
      return;
    }
    for (Class<? extends io.fabric8.kubernetes.client.CustomResource<?, ?>> kind :
        java.util.List.of(LeaderGroup.class, RedisLock.class)) {
      client
          .resources(kind)
          .inNamespace(ns)
          .list()
          .getItems()
          .forEach(
              r -> {
                if (r.getMetadata().getFinalizers() != null
                    && !r.getMetadata().getFinalizers().isEmpty()) {
                  client
                      .resources(kind)
                      .inNamespace(ns)
                      .withName(r.getMetadata().getName())
                      .patch(
                          PatchContext.of(PatchType.JSON_MERGE),
                          "{\"metadata\":{\"finalizers\":null}}");
                }
              });
      client.resources(kind).inNamespace(ns).delete();
    }
    client.pods().inNamespace(ns).withGracePeriod(0).delete();
    client.services().inNamespace(ns).delete();
    client.discovery().v1().endpointSlices().inNamespace(ns).delete();
    client.secrets().inNamespace(ns).delete();
    client.v1().events().inNamespace(ns).delete();
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!client.pods().inNamespace(ns).list().getItems().isEmpty()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("pods of an earlier run in " + ns + " are not gone");
      }
      pause();
    }
  }

  @Override
  public void close() {
    client.close();
  }
}
