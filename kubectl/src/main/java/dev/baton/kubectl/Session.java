package dev.baton.kubectl;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.util.function.Function;

/**
 * What the commands of one run share: the output streams, kubectl's flags, and the cluster, opened
 * on first use only, so that help, completion scripts and usage errors never pay for a client.
 */
final class Session implements AutoCloseable {

  final PrintStream out;
  final PrintStream err;
  final KubeFlags flags = new KubeFlags();
  private final Function<KubeFlags, KubernetesClient> opener;
  private final boolean closeClient;
  private KubernetesClient client;

  Session(
      PrintStream out,
      PrintStream err,
      Function<KubeFlags, KubernetesClient> opener,
      boolean closeClient) {
    this.out = out;
    this.err = err;
    this.opener = opener;
    this.closeClient = closeClient;
  }

  KubernetesClient client() {
    if (client == null) {
      client = opener.apply(flags);
    }
    return client;
  }

  /** -n, else the context's namespace, else "default", as kubectl picks it. */
  String namespace() {
    if (flags.namespace != null) {
      return flags.namespace;
    }
    String ns = client().getNamespace();
    return ns == null ? "default" : ns;
  }

  @Override
  public void close() {
    if (client != null && closeClient) {
      client.close();
    }
  }
}
