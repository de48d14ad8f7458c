package dev.baton.operator;

import dev.baton.client.DaemonThreads;
import dev.baton.client.GracefulStop;
import dev.baton.operator.config.OperatorConfig;
import dev.baton.operator.injection.AgentInjector;
import dev.baton.operator.injection.AgentWebhook;
import dev.baton.operator.kube.ReadRetry;
import dev.baton.operator.leadergroup.LeaderGroupReconciler;
import dev.baton.operator.lease.RedisConnections;
import dev.baton.operator.metrics.BatonMetrics;
import dev.baton.operator.metrics.HttpEndpoints;
import dev.baton.operator.metrics.JvmMeters;
import dev.baton.operator.metrics.Liveness;
import dev.baton.operator.pods.PodCatalog;
import dev.baton.operator.redislock.RedisLockReconciler;
import dev.baton.operator.redisusers.GroupRedisUsers;
import dev.baton.operator.redisusers.LockRedisUsers;
import dev.baton.operator.replica.Activation;
import dev.baton.operator.replica.LeaseElection;
import dev.baton.operator.replica.ReplicaClients;
import dev.baton.operator.replica.ReplicaRole;
import dev.baton.operator.replica.SoleReplica;
import dev.baton.operator.replica.WriteFence;
import dev.baton.operator.tenancy.Tenancy;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.javaoperatorsdk.operator.Operator;
import io.javaoperatorsdk.operator.RegisteredController;
import io.javaoperatorsdk.operator.api.config.ControllerConfigurationOverrider;
import io.javaoperatorsdk.operator.monitoring.micrometer.MicrometerMetrics;
import io.javaoperatorsdk.operator.processing.retry.GenericRetry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Baton's entry point: configuration, Redis, metrics, the controllers, the replica's role, the HTTP
 * endpoints. Wiring only.
 *
 * <p>Every replica starts its controllers' informers at once, so a standby's caches are warm; the
 * controllers process events only while this replica is the active one ({@link ReplicaRole}), and
 * every write to the API server passes the {@link WriteFence} (docs/design.md, "The operator's own
 * failover").
 */
public final class BatonOperator implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(BatonOperator.class);
  private static final Path SERVICE_ACCOUNT_NAMESPACE =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount/namespace");

  private final OperatorConfig config;
  private final KubernetesClient client;
  private final boolean exitWhenNoLongerActive;
  private final List<RegisteredController<?>> controllers = new ArrayList<>();
  private final Activation activation = new Activation();
  private PrometheusMeterRegistry registry;
  private JvmMeters jvmMeters;
  private BatonMetrics metrics;
  private RedisConnections connections;
  private ReplicaRole role;
  private KubernetesClient fencedClient;
  private KubernetesClient leaseClient;
  private Operator operator;
  private HttpEndpoints http;
  private AgentWebhook webhook;
  private LeaderGroupReconciler leaderGroups;
  private PodCatalog pods;
  private final Liveness liveness = new Liveness();
  private final ReadRetry reads = new ReadRetry();
  // What the start waits for, told by /readyz; null once started.
  private volatile String starting = "the informers are listing";
  private boolean closed;

  /**
   * @param exitWhenNoLongerActive a replica that stops being active without being asked to ends its
   *     process, to be restarted as a clean standby (as in a pod); in this process's tests it only
   *     stops acting
   */
  public BatonOperator(
      OperatorConfig config, KubernetesClient client, boolean exitWhenNoLongerActive) {
    this.config = config;
    this.client = client;
    this.exitWhenNoLongerActive = exitWhenNoLongerActive;
  }

  public static void main(String[] args) throws Exception {
    AsyncPool.configure();
    if (!AsyncPool.pooled()) {
      log.warn(
          "API responses are handled on a new thread each: CompletableFuture uses no pool here;"
              + " set -D{}=4",
          AsyncPool.PARALLELISM);
    }
    CommandLine.exitUnlessRun(args);
    boolean inCluster = Files.exists(SERVICE_ACCOUNT_NAMESPACE);
    OperatorConfig config = OperatorConfig.from(System.getenv(), inCluster);
    BatonOperator baton = new BatonOperator(config, new KubernetesClientBuilder().build(), true);
    GracefulStop.install("baton-shutdown", baton::close);
    try {
      baton.start();
    } catch (Exception e) {
      // Informer and HTTP threads would keep a half-started process alive: end it, so that
      // Kubernetes restarts the pod.
      log.error("Baton could not start: {}", rootCause(e).getMessage(), e);
      System.exit(1);
    }
  }

  /** JOSDK wraps what stopped a controller's start in exceptions of its own. */
  private static Throwable rootCause(Throwable e) {
    Throwable cause = e;
    while (cause.getCause() != null && cause.getCause() != cause) {
      cause = cause.getCause();
    }
    return cause;
  }

  /** Starts an operator in this process: the test kit's and the demo's way to run one. */
  public static BatonOperator launch(Map<String, String> env, KubernetesClient client)
      throws IOException {
    return new BatonOperator(OperatorConfig.from(env, false), client, false).start();
  }

  public BatonOperator start() throws IOException {
    registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    jvmMeters = new JvmMeters(registry);
    metrics = new BatonMetrics(registry);
    connections = new RedisConnections(metrics.scriptTimer(), config.redisTimeout());
    // Without a Lease, a replica's identity names this process, not only the pod.
    String identity =
        config.leaderElection()
            ? identity()
            : identity() + "/" + UUID.randomUUID().toString().substring(0, 8);
    role = replicaRole(identity);
    fencedClient = ReplicaClients.fenced(client, role, identity, reads);
    operator =
        new Operator(
            o ->
                o.withKubernetesClient(fencedClient)
                    .withCloseClientOnStop(false)
                    // Finalizers by merge patch, not server-side apply.
                    .withUseSSAToPatchPrimaryResource(false)
                    // Per controller, not per resource: a label per group would grow without bound.
                    .withMetrics(MicrometerMetrics.withoutPerResourceMetrics(registry))
                    .withReconciliationTerminationTimeout(Duration.ofSeconds(5))
                    // A refused list (429 while the server's storage initializes, a 5xx) is
                    // listed again as long as it takes; /readyz says 503 until every informer
                    // has listed (docs/design.md, "Starting against a server that refuses").
                    .withStopOnInformerErrorDuringStartup(false)
                    .withCacheSyncTimeout(Duration.ofDays(365)));
    Clock clock = Clock.systemUTC();
    registerControllers(clock);
    // The probes answer from the start: alive, and not ready until the informers have listed.
    http = HttpEndpoints.start(config.httpPort(), registry, liveness::check, this::readiness);
    // Redis connects while both controllers' informers list: a cold start waits for the slowest
    // of the three, not the sum.
    CompletableFuture<Void> redisConnected =
        CompletableFuture.runAsync(() -> connections.warmUp(config.redis()), startThread("redis"));
    // JOSDK starts the controllers side by side and returns once their informers have synced. Every
    // replica processes events; a standby's are dropped before they reach a reconcile, and
    // becoming active hands every cached resource to its controller (Activation).
    operator.start();
    starting = "informers synced; the replica's role is starting";
    redisConnected.join();
    if (config.webhook().enabled()) {
      startWebhook(identity, clock);
    }
    role.start(this::becomeActive, this::noLongerActive);
    // Ready means able to take over: once the role is in play.
    starting = null;
    log.info(
        "Baton started: cluster id {}, namespaces {}, default Redis {}, http port {}; {}",
        config.clusterId(),
        config.watchesAllNamespaces() ? "all" : config.namespaces(),
        config.redis().describe(),
        http.port(),
        role.describe());
    return this;
  }

  private void registerControllers(Clock clock) {
    // One pod informer for both controllers: two would hold every pod twice.
    pods = new PodCatalog(fencedClient, config.namespaces());
    metrics.cachedPods(pods::wholeCount, pods::compactCount);
    ControllerKit kit =
        new ControllerKit(
            fencedClient,
            config.clusterId(),
            config.redis(),
            connections,
            metrics,
            liveness,
            clock,
            role,
            activation,
            pods,
            Tenancy.of(config.sharedKeyPrefixes(), config.roleLabelPrefixes()),
            config.webhook().agentImage());
    leaderGroups = new LeaderGroupReconciler(kit);
    controllers.add(operator.register(leaderGroups, this::controllerSettings));
    controllers.add(operator.register(new RedisLockReconciler(kit), this::controllerSettings));
    if (config.redisAclPerGroup()) {
      controllers.add(
          operator.register(
              new GroupRedisUsers(kit, config.redisTimeout()), this::controllerSettings));
      controllers.add(
          operator.register(
              new LockRedisUsers(kit, config.redisTimeout()), this::controllerSettings));
    }
  }

  /** The Lease's election, or without it the sole replica that Redis keeps alone. */
  private ReplicaRole replicaRole(String identity) {
    return config.leaderElection()
        ? new LeaseElection(
            leaseClient = ReplicaClients.named(client, identity),
            leaseNamespace(),
            config.leaderElectionLeaseName(),
            identity,
            LeaseElection.Timing.of(config.leaderElectionLease()))
        : new SoleReplica(
            connections, config.redis(), config.clusterId(), identity, metrics::otherActiveReplica);
  }

  /** Every replica answers the webhook from its warm LeaderGroup cache, standby or active. */
  private void startWebhook(String identity, Clock clock) throws IOException {
    webhook =
        AgentWebhook.start(
            config.webhook(),
            this::leaseNamespace,
            ReplicaClients.named(client, identity),
            (ns, labels) -> leaderGroups.groupFor(ns, labels).map(AgentInjector.Group::of),
            clock);
  }

  /**
   * Every cached resource is handed to its controller now: events that came while this replica
   * stood by were filtered out, whichever replica acted on them.
   */
  private void becomeActive() {
    metrics.activeReplica(true);
    activation.wakeAll();
    // Marks left by groups deleted while no replica was active; off the role's thread.
    CompletableFuture.runAsync(leaderGroups::clearOrphans)
        .exceptionally(
            e -> {
              log.warn("Could not clear the marks of deleted LeaderGroups: {}", e.getMessage());
              return null;
            });
  }

  /** A thread per start-up task, named for thread dumps; gone once its task is done. */
  private static Executor startThread(String name) {
    return task -> DaemonThreads.named("baton-start-" + name).newThread(task).start();
  }

  private void noLongerActive() {
    metrics.activeReplica(false);
    if (exitWhenNoLongerActive) {
      log.warn("Exiting, to be restarted as a standby with clean caches");
      close();
      System.exit(1);
    }
  }

  /**
   * The filter that keeps a standby's events out of its controllers, the namespaces to watch, and
   * the retry of a reconcile that failed on an API error: soon, then backing off to 30 s, without
   * ever giving up (docs/design.md, "Failure policy").
   */
  private <P extends HasMetadata> void controllerSettings(ControllerConfigurationOverrider<P> c) {
    // A standby's events stop here: for RedisLocks JOSDK would otherwise try to add a missing
    // finalizer, a write the fence refuses, and JOSDK reconciles a secondary resource's event only
    // for a resource whose own events passed this filter.
    c.withGenericFilter(resource -> role.holdsRole());
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
    String waitingFor = starting;
    if (waitingFor != null) {
      String refused = reads.lastRefusal();
      return new HttpEndpoints.Check(
          false,
          "starting: "
              + waitingFor
              + (refused == null ? "" : "; the API server refused a read: " + refused));
    }
    List<String> unhealthy =
        controllers.stream()
            .filter(c -> !c.getControllerHealthInfo().unhealthyEventSources().isEmpty())
            .map(c -> c.getConfiguration().getName())
            .toList();
    if (!unhealthy.isEmpty()) {
      return new HttpEndpoints.Check(false, "informers unhealthy: " + unhealthy);
    }
    if (webhook != null && !webhook.serving()) { // out of its Service until it can answer
      return new HttpEndpoints.Check(false, "webhook has no serving certificate yet");
    }
    if (!role.mayAct()) {
      // A standby is ready to take over: it counts for PodDisruptionBudgets and the metrics
      // Service, so it answers 200.
      return new HttpEndpoints.Check(true, role.describe() + "; informers synced");
    }
    return new HttpEndpoints.Check(
        true,
        "active; informers synced; Redis "
            + (connections.lastAnswerFailed(config.redis())
                ? "unreachable: failing static, labels kept"
                : "answering"));
  }

  private String identity() {
    String id = config.leaderElectionIdentity();
    return id == null || id.isBlank() ? "baton-" + UUID.randomUUID() : id;
  }

  private String leaseNamespace() {
    return config.leaseNamespace(SERVICE_ACCOUNT_NAMESPACE);
  }

  /** -1 when the webhook is off. */
  public int webhookPort() {
    return webhook == null ? -1 : webhook.port();
  }

  public int httpPort() {
    return http.port();
  }

  /** What /healthz answers from. */
  public Liveness liveness() {
    return liveness;
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /**
   * Stops acting first (and, when active, hands over to a standby at once), then stops the
   * controllers, the renewer and the connections.
   */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    closeStarted(role);
    closeStarted(http);
    closeStarted(webhook);
    closeStarted(operator == null ? null : operator::stop);
    closeStarted(leaderGroups == null ? null : leaderGroups::close);
    closeStarted(pods);
    closeStarted(fencedClient);
    closeStarted(leaseClient);
    closeStarted(connections);
    closeStarted(jvmMeters);
  }

  /** Null: not started. One part that fails to close leaves the others to close. */
  private static void closeStarted(AutoCloseable part) {
    if (part == null) {
      return;
    }
    try {
      part.close();
    } catch (Exception e) {
      log.warn("Could not close {}: {}", part.getClass().getSimpleName(), e.toString());
    }
  }
}
