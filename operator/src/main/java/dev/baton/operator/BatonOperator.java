package dev.baton.operator;

import dev.baton.operator.config.OperatorConfig;
import dev.baton.operator.leadergroup.LeaderGroupReconciler;
import dev.baton.operator.lease.RedisConnections;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.metrics.HttpEndpoints;
import dev.baton.operator.metrics.Liveness;
import dev.baton.operator.redislock.RedisLockReconciler;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.api.config.LeaderElectionConfiguration;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.javaoperatorsdk.operator.processing.retry.GenericRetry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Baton's entry point: configuration, Redis, metrics, the controllers, the HTTP endpoints. */
public final class BatonOperator implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(BatonOperator.class);
  private static final Path SERVICE_ACCOUNT_NAMESPACE =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");

  private final OperatorConfig config;
  private final KubernetesClient client;
  private PrometheusMeterRegistry registry;
  private RedisConnections connections;
  private Operator operator;
  private HttpEndpoints http;
  private LeaderGroupReconciler leaderGroups;

  /** Without operator leader election this replica always leads. */
  private volatile boolean leading;

  public BatonOperator(OperatorConfig config, KubernetesClient client) {
    this.config = config;
    this.client = client;
  }

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("demo")) {
      System.exit(DemoLauncher.run());
    }
    if (args.length > 0) {
      System.err.println("usage: java -jar baton-operator.jar [demo]");
      System.exit(2);
    }
    boolean inCluster = Files.exists(SERVICE_ACCOUNT_NAMESPACE);
    OperatorConfig config = OperatorConfig.from(System.getenv(), inCluster);
    BatonOperator baton = new BatonOperator(config, new KubernetesClientBuilder().build());
    Runtime.getRuntime().addShutdownHook(new Thread(baton::close, "baton-shutdown"));
    baton.start();
  }

  /** Starts an operator in this process: the test kit's and the demo's way to run one. */
  public static BatonOperator launch(Map<String, String> env, KubernetesClient client)
      throws IOException {
    return new BatonOperator(OperatorConfig.from(env, false), client).start();
  }

  public BatonOperator start() throws IOException {
    leading = !config.leaderElection();
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    BatonMetrics metrics = new BatonMetrics(registry);
    connections = new RedisConnections(metrics.scriptTimer(), config.redisTimeout());
    Duration lease = config.leaderElectionLease();
    operator =
        new Operator(
            o -> {
              o.withKubernetesClient(client)
                  .withCloseClientOnStop(false)
                  // Merge patches, not server-side apply: the status is wholly ours.
                  .withUseSSAToPatchPrimaryResource(false)
                  // Per controller, not per resource: a label per group would grow without bound.
                  .withMetrics(MicrometerMetrics.withoutPerResourceMetrics(registry))
                  .withReconciliationTerminationTimeout(Duration.ofSeconds(5));
              if (config.leaderElection()) {
                o.withLeaderElectionConfiguration(
                    new LeaderElectionConfiguration(
                        "baton-operator",
                        leaseNamespace(),
                        lease,
                        // client-go's proportions: renew deadline 2/3, retry period 2/15.
                        lease.multipliedBy(2).dividedBy(3),
                        lease.multipliedBy(2).dividedBy(15),
                        config.leaderElectionIdentity(),
                        new LeaderCallbacks(
                            () -> leading = true, () -> leading = false, newLeader -> {}),
                        // A replica that lost the Lease exits and restarts clean, as in-cluster
                        // operators do; its labels stay and the new active replica adopts them.
                        true));
              }
            });
    Liveness liveness = new Liveness();
    Clock clock = Clock.systemUTC();
    leaderGroups =
        new LeaderGroupReconciler(
            client, config.clusterId(), config.redis(), connections, metrics, liveness, clock);
    operator.register(leaderGroups, this::controllerSettings);
    operator.register(
        new RedisLockReconciler(
            client, config.clusterId(), config.redis(), connections, metrics, liveness, clock),
        this::controllerSettings);
    operator.start();
    http = HttpEndpoints.start(config.httpPort(), registry, liveness::check, this::readiness);
    log.info(
        "Baton started: cluster id {}, namespaces {}, default Redis {}, http port {}",
        config.clusterId(),
        config.watchesAllNamespaces() ? "all" : config.namespaces(),
        config.redis().describe(),
        http.port());
    return this;
  }

  /**
   * The namespaces to watch, and the retry of a reconcile that failed on an API error: soon, then
   * backing off to 30 s, without ever giving up (docs/design.md, "Failure policy").
   */
  private void controllerSettings(ControllerConfigurationOverrider<?> c) {
    if (!config.watchesAllNamespaces()) {
      c.settingNamespaces(config.namespaces());
    }
    c.withRetry(
        new GenericRetry()
            .setInitialInterval(200)
            .setIntervalMultiplier(2)
            .setMaxInterval(30_000)
            .withoutMaxAttempts());
  }

  private HttpEndpoints.Check readiness() {
    var info = operator.getRuntimeInfo();
    if (!info.isStarted()) {
      return new HttpEndpoints.Check(false, "controllers not started");
    }
    if (!leading) {
      // A standby replica is ready to take over: it must count for PodDisruptionBudgets and the
      // metrics Service, so it answers 200.
      return new HttpEndpoints.Check(true, "standby: waiting for the operator Lease");
    }
    if (!info.allEventSourcesAreHealthy()) {
      return new HttpEndpoints.Check(
          false, "informers unhealthy: " + info.unhealthyEventSources().keySet());
    }
    return new HttpEndpoints.Check(
        true,
        "informers synced; Redis "
            + (connections.lastAnswerFailed(config.redis())
                ? "unreachable: failing static, labels kept"
                : "answering"));
  }

  private String leaseNamespace() {
    if (config.leaderElectionNamespace() != null) {
      return config.leaderElectionNamespace();
    }
    try {
      return Files.readString(SERVICE_ACCOUNT_NAMESPACE).trim();
    } catch (IOException e) {
      throw new IllegalStateException(
          OperatorConfig.LEADER_ELECTION_NAMESPACE
              + " is not set and the pod's namespace is"
              + " unknown; set it or BATON_LEADER_ELECTION=false");
    }
  }

  public int httpPort() {
    return http.port();
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  @Override
  public void close() {
    if (http != null) {
      http.close();
    }
    if (operator != null) {
      operator.stop();
    }
    if (leaderGroups != null) {
      leaderGroups.close();
    }
    if (connections != null) {
      connections.close();
    }
  }
}
