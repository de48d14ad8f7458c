package dev.baton.operator.replica;

import dev.baton.operator.kube.PooledHttpClientFactory;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * The replica's two API clients, both with a user agent that names the replica (in the API server's
 * audit log, for instance): the controllers' client, whose every write is held by the {@link
 * WriteFence}, and the unfenced one for the replica's own Lease.
 */
public final class ReplicaClients {

  private static final String USER_AGENT_PREFIX = "baton-operator/";

  private ReplicaClients() {}

  /** The same API as {@code client}, with every write held by the replica's fence. */
  public static KubernetesClient fenced(
      KubernetesClient client, ReplicaRole role, String identity) {
    return new KubernetesClientBuilder()
        .withConfig(withUserAgent(client, identity))
        .withHttpClientFactory(new PooledHttpClientFactory())
        .withHttpClientBuilderConsumer(
            b -> b.addOrReplaceInterceptor("baton-write-fence", new WriteFence(role)))
        .build();
  }

  /** The replica's unfenced client, for its own Lease. */
  public static KubernetesClient named(KubernetesClient client, String identity) {
    return new KubernetesClientBuilder()
        .withConfig(withUserAgent(client, identity))
        .withHttpClientFactory(new PooledHttpClientFactory())
        .build();
  }

  private static Config withUserAgent(KubernetesClient client, String identity) {
    return new ConfigBuilder(client.getConfiguration())
        .withUserAgent(USER_AGENT_PREFIX + identity)
        .build();
  }
}
