package dev.baton.operator;

import dev.baton.operator.kube.EventRecorder;
import dev.baton.operator.kube.StatusWriter;
import dev.baton.operator.lease.RedisConnections;
import dev.baton.operator.lease.RedisSecrets;
import dev.baton.operator.lease.RedisSettings;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.metrics.Liveness;
import dev.baton.operator.pods.PodCatalog;
import dev.baton.operator.replica.Activation;
import dev.baton.operator.replica.ReplicaRole;
import dev.baton.operator.tenancy.Tenancy;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;

/**
 * What both controllers are built from, the same for each: the fenced API client, the cluster id in
 * holder records, the default Redis and the connections to every Redis, metrics and liveness, the
 * clock, the replica's role and what it does when it becomes active, the one pod informer, what a
 * namespace tenant may claim (keys, role labels), and the agent image the webhook injects (null
 * when it is off): what pods' agents are held against.
 */
public record ControllerKit(
    KubernetesClient client,
    String clusterId,
    RedisSettings defaultRedis,
    RedisConnections connections,
    BatonMetrics metrics,
    Liveness liveness,
    Clock clock,
    ReplicaRole role,
    Activation activation,
    PodCatalog pods,
    Tenancy tenancy,
    String agentImage) {

  /** A controller's Event recorder; each keeps its own aggregation. */
  public EventRecorder events() {
    return new EventRecorder(client, clock);
  }

  public StatusWriter statusWriter() {
    return new StatusWriter(client);
  }

  /** The reader of the Redis Secrets a resource's spec names, which knows the default Redis. */
  public RedisSecrets secrets() {
    return new RedisSecrets(client, defaultRedis);
  }
}
