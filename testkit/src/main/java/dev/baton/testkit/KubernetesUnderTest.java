package dev.baton.testkit;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.util.Map;

/**
 * The Kubernetes API a sandbox runs against: the embedded mock server in CRUD mode, or, when
 * {@value #KUBECONFIG} names a kubeconfig, a real cluster. Pods there have no kubelet (they are
 * held unscheduled); tests set their status themselves, as they do on the mock.
 */
public interface KubernetesUnderTest extends AutoCloseable {

  /** A kubeconfig: run the integration tests against that cluster instead of the mock. */
  String KUBECONFIG = "BATON_TEST_KUBECONFIG";

  KubernetesClient client();

  /** Another client, for an operator or a watcher with its own connections. */
  KubernetesClient newClient();

  /** Environment variables that point an operator in its own process at this API. */
  Map<String, String> processEnvironment();

  /** A real API server: no fault injection, and pods need their status written after creation. */
  boolean real();

  @Override
  void close();

  /** The API the environment asks for: a real cluster with {@value #KUBECONFIG}, else embedded. */
  static KubernetesUnderTest fromEnvironment() {
    String kubeconfig = System.getenv(KUBECONFIG);
    return kubeconfig == null || kubeconfig.isBlank()
        ? EmbeddedKubernetes.start()
        : RealKubernetes.connect(Path.of(kubeconfig));
  }
}
