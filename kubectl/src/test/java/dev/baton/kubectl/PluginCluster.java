package dev.baton.kubectl;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.api.v1alpha1.LeaseSpec;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/**
 * The embedded API server with what the plugin reads, written as the operator and a kubelet would
 * leave it (no operator, no Redis: the plugin never talks to either), and the plugin run in this
 * process with the flags of a real command line.
 */
final class PluginCluster implements AutoCloseable {

  final EmbeddedKubernetes kube = EmbeddedKubernetes.start();
  final KubernetesClient client = kube.client();

  /** What one run printed, and its exit code. */
  record Run(int exit, String out, String err) {}

  void namespace(String name) {
    client
        .namespaces()
        .resource(new NamespaceBuilder().withNewMetadata().withName(name).endMetadata().build())
        .create();
  }

  LeaderGroup group(String namespace, String name, String app) {
    LeaderGroup g = new LeaderGroup();
    g.setMetadata(new ObjectMetaBuilder().withName(name).withNamespace(namespace).build());
    LeaderGroupSpec spec = new LeaderGroupSpec();
    spec.setSelector(new LabelSelectorBuilder().withMatchLabels(Map.of("app", app)).build());
    spec.setLease(new LeaseSpec("10s", "3s"));
    g.setSpec(spec);
    return client.resource(g).create();
  }

  /** A ready pod of app, with the Baton agent as a native sidecar serving its health port. */
  Pod podWithAgent(String namespace, String name, String app, String ip, int healthPort) {
    Pod pod =
        new PodBuilder(Sandbox.readyPod(namespace, name, Map.of("app", app)))
            .editSpec()
            .addNewInitContainer()
            .withName("baton-agent")
            .withImage("ghcr.io/baton-dev/baton-operator:0.1.0")
            .withCommand("/app/baton-agent")
            .withRestartPolicy("Always")
            .addNewEnv()
            .withName("BATON_AGENT_HEALTH_LISTEN")
            .withValue(":" + healthPort)
            .endEnv()
            .endInitContainer()
            .endSpec()
            .editStatus()
            .withPodIP(ip)
            .endStatus()
            .build();
    return client.pods().resource(pod).create();
  }

  /** The plugin with a client of this API (flags that pick a cluster are parsed, not used). */
  Run baton(String... args) {
    return run(flags -> client, false, args);
  }

  /** The plugin as a user runs it: the cluster comes from its kubeconfig flags. */
  Run batonWithKubeconfig(String... args) {
    return run(KubeFlags::open, true, args);
  }

  private static Run run(
      java.util.function.Function<KubeFlags, KubernetesClient> opener,
      boolean close,
      String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int exit =
        KubectlBaton.run(
            args,
            opener,
            close,
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8));
    return new Run(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /**
   * A kubeconfig with two contexts: {@code unreachable} (current, a port nothing listens on) and
   * {@code embedded} (this API, namespace {@code namespace}).
   */
  Path twoContexts(Path file, String namespace) {
    try {
      Files.writeString(
          file,
          """
          apiVersion: v1
          kind: Config
          clusters:
          - name: nowhere
            cluster: {server: "http://127.0.0.1:9"}
          - name: embedded
            cluster: {server: "%s"}
          contexts:
          - name: unreachable
            context: {cluster: nowhere, user: tester, namespace: default}
          - name: embedded
            context: {cluster: embedded, user: tester, namespace: %s}
          users:
          - name: tester
            user: {token: not-checked-by-the-mock}
          current-context: unreachable
          """
              .formatted(kube.url(), namespace));
      return file;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    kube.close();
  }
}
