package dev.baton.operator.replica;

import dev.baton.operator.kube.PooledHttpClientFactory;
import dev.baton.operator.kube.ReadRetry;
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

  /**
   * The same API as {@code client}, with every write held by the replica's fence. Fabric8 resends a
   * request that got a 5xx or no answer on a timer of its own, and a fence that refuses such a
   * resend (the role lapsed meanwhile) throws where nothing catches it: the request then never
   * completes and the reconcile that sent it waits forever. So this client resends nothing; a
   * failed request fails the reconcile, which JOSDK retries with its own back-off, each time
   * through the fence as the role is then. Reads alone are sent once more when the server asks for
   * it ({@link ReadRetry}: 429 and 503, after its Retry-After).
   */
  public static KubernetesClient fenced(
      KubernetesClient client, ReplicaRole role, String identity) {
    return fenced(client, role, identity, new ReadRetry());
  }

  /** The same, with the read retry whose last refusal readiness tells. */
  public static KubernetesClient fenced(
      KubernetesClient client, ReplicaRole role, String identity, ReadRetry reads) {
    return new KubernetesClientBuilder()
        .withConfig(
            new ConfigBuilder(withUserAgent(client, identity))
                .withRequestRetryBackoffLimit(0)
                .build())
        .withHttpClientFactory(new PooledHttpClientFactory())
        .withHttpClientBuilderConsumer(
            b ->
                b.addOrReplaceInterceptor("baton-write-fence", new WriteFence(role))
                    .addOrReplaceInterceptor("baton-read-retry", reads))
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
