package dev.baton.bench.scale;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.api.v1alpha1.LeaseSpec;
import dev.baton.bench.harness.BenchConfig;
import dev.baton.bench.harness.Percentiles;
import dev.baton.bench.harness.Progress;
import dev.baton.bench.harness.Report;
import dev.baton.bench.harness.Waits;
import dev.baton.bench.locks.RedisInfo;
import dev.baton.testkit.OperatorProcess;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Supplier;

/**
 * Many groups on one operator: cold start of the operator process with every group and pod already
 * in the API, then a steady-state window (CPU, heap after GC, Redis and Kubernetes API traffic),
 * then many leaders deleted at once. The operator is the jar given by {@code bench.operatorJar} (by
 * default the one this build packaged), so the same command measures before and after a change to
 * it.
 */
public final class ScaleBench {

  static final int PODS_PER_GROUP = 3;
  static final String ROLE = LeaderGroupSpec.DEFAULT_ROLE_LABEL;
  static final int TOP_THREADS = 5;

  /** The shares of groups converged that the cold start's row reports the time of. */
  private static final double[] SHARES = {0.5, 0.9, 0.99};

  static final String WARM_UP_NAMESPACE_PREFIX = "scale-warm-up-";

  private final BenchConfig config;

  public ScaleBench(BenchConfig config) {
    this.config = config;
  }

  record Deletions(
      int count, double allMillis, Percentiles perGroup, int missing, Map<String, Long> requests) {}

  /** New groups created at once on the running operator, and how long until all converged. */
  record Burst(int groups, double seconds, Map<String, Long> requests) {}

  /** How many groups the burst creates: the shape the cold-start issue measured. */
  static final int BURST_GROUPS = 50;

  public void run(Report report) throws Exception {
    Figures f = new Figures();
    f.groups = config.groups();
    f.namespaces = Math.max(1, Math.min(config.namespaces(), f.groups));
    int deletions = Math.min(config.deletions(), f.groups);
    Files.createDirectories(config.out());
    f.log = config.out().resolve("operator-scale.log");
    try (CountingKubernetes kube = CountingKubernetes.start();
        BenchRedis redis = BenchRedis.start(config.redisCluster());
        KubernetesClient admin = kube.newClient()) {
      warmUpTestBed(kube, redis, admin, f.groups);
      Progress.line(
          "scale: creating "
              + f.groups
              + " LeaderGroups and "
              + f.groups * PODS_PER_GROUP
              + " pods");
      List<String> groupKeys = populate(admin, f.groups, f.namespaces);
      try (KubernetesClient watchClient = kube.newClient();
          ConvergenceWatcher watcher =
              new ConvergenceWatcher(watchClient, ROLE, PODS_PER_GROUP, f.groups)) {
        Waits.require(
            () -> watcher.sees(f.groups * PODS_PER_GROUP, f.groups),
            Duration.ofMinutes(2),
            "the watcher to list every pod and group");
        ProcessHandle redisProcess = redis.process();
        f.redisFound = redisProcess != null;

        Map<String, Long> requests0 = kube.requests();
        RedisInfo redis0 = redis.info();
        Progress.line("scale: starting the operator process");
        long start = System.nanoTime();
        try (OperatorProcess operator = startOperator("scale", kube, redis, f.log)) {
          f.cold0 = CpuSample.take(operator, redisProcess);
          coldStart(f, operator, watcher, start);
          f.coldThreads = ThreadCpu.sample(operator.pid());
          f.coldRequests = CountingKubernetes.minus(kube.requests(), requests0);
          f.coldRedis = redis.info().minus(redis0);

          Waits.sleep(Duration.ofSeconds(config.quick() ? 3 : 10));
          Progress.line("scale: steady state for " + config.steadySeconds() + " s");
          Map<String, Long> requests1 = kube.requests();
          RedisInfo redis1 = redis.info();
          long terms1 = watcher.termChanges();
          f.steadyThreads0 = ThreadCpu.sample(operator.pid());
          f.steady0 = CpuSample.take(operator, redisProcess);
          Waits.sleep(Duration.ofSeconds(config.steadySeconds()));
          f.steady1 = CpuSample.take(operator, redisProcess);
          f.steadyThreads1 = ThreadCpu.sample(operator.pid());
          f.steadyRedis = redis.info().minus(redis1);
          f.steadyRequests = CountingKubernetes.minus(kube.requests(), requests1);
          f.stillConverged = watcher.allConverged();
          f.steadyTermChanges = watcher.termChanges() - terms1;
          f.memory = JvmMemory.afterGc(operator.pid());

          Progress.line("scale: deleting " + deletions + " leaders at once");
          Map<String, Long> requests2 = kube.requests();
          f.deletions =
              deleteLeaders(
                  admin,
                  watcher,
                  groupKeys,
                  deletions,
                  () -> CountingKubernetes.minus(kube.requests(), requests2));
          f.series = SeriesPerGroup.scrape(operator.httpPort());

          Progress.line("scale: creating " + BURST_GROUPS + " groups at once");
          Waits.sleep(Duration.ofSeconds(3));
          Map<String, Long> requests3 = kube.requests();
          f.burst =
              burst(
                  admin,
                  watcher,
                  f.groups,
                  () -> CountingKubernetes.minus(kube.requests(), requests3));
        }
      }
    }
    new ScaleReport(config).write(report, f);
  }

  /**
   * The same cold start once, unreported, in a namespace of its own that is deleted afterwards. The
   * benchmark JVM serves the API, and its JIT compiled the mock server's patch, status and event
   * paths during the first cold start: 40% of its CPU went to the C2 compiler then, on the same two
   * cores as the operator. A real API server is compiled ahead of time and long running, so the
   * measured run starts with the mock warm and the operator process fresh.
   */
  private void warmUpTestBed(
      CountingKubernetes kube, BenchRedis redis, KubernetesClient admin, int groups)
      throws Exception {
    String ns = WARM_UP_NAMESPACE_PREFIX + "0";
    Progress.line("scale: warming the test bed (unreported): " + groups + " groups in " + ns);
    create(admin, 0, groups, 1, WARM_UP_NAMESPACE_PREFIX);
    try (KubernetesClient watchClient = kube.newClient();
        ConvergenceWatcher watcher =
            new ConvergenceWatcher(watchClient, ROLE, PODS_PER_GROUP, groups);
        OperatorProcess operator =
            startOperator(
                "scale-warm-up", kube, redis, config.out().resolve("operator-scale-warm-up.log"))) {
      Waits.require(watcher::allConverged, Duration.ofMinutes(4), "the warm-up groups to converge");
    }
    admin.resources(LeaderGroup.class).inNamespace(ns).delete();
    admin.pods().inNamespace(ns).delete();
    Waits.require(
        () ->
            admin.pods().inNamespace(ns).list().getItems().isEmpty()
                && admin.resources(LeaderGroup.class).inNamespace(ns).list().getItems().isEmpty(),
        Duration.ofMinutes(1),
        "the warm-up namespace to be empty");
    // Compilations the warm-up queued finish before the clock starts.
    Waits.sleep(Duration.ofSeconds(3));
  }

  /** The operator under test in its own process, started now. */
  private OperatorProcess startOperator(
      String name, CountingKubernetes kube, BenchRedis redis, Path log) {
    return OperatorProcess.ofJar(
            name,
            kube.embedded(),
            Map.of("BATON_REDIS_URL", redis.url(), "BATON_LEADER_ELECTION", "false"),
            config.operatorJar(),
            config.operatorJvm(config.operatorJar()),
            log)
        .start();
  }

  private void coldStart(
      Figures f, OperatorProcess operator, ConvergenceWatcher watcher, long start) {
    long[] readyAt = {-1};
    Duration timeout = Duration.ofMinutes(config.quick() ? 2 : 4);
    boolean converged =
        Waits.until(
            () -> {
              if (readyAt[0] < 0 && operator.ready()) {
                readyAt[0] = System.nanoTime();
              }
              if (!operator.alive()) {
                throw new IllegalStateException("the operator process exited; see " + f.log);
              }
              return watcher.allConverged();
            },
            timeout,
            Duration.ofMillis(20));
    f.cold1 = CpuSample.take(operator, null);
    if (!converged) {
      throw new IllegalStateException(
          "only "
              + watcher.convergedGroups()
              + " of "
              + f.groups
              + " groups converged within "
              + timeout.toSeconds()
              + " s; see "
              + f.log);
    }
    f.coldStartSeconds = (watcher.allConvergedNanos() - start) / 1e9;
    f.readySeconds = readyAt[0] < 0 ? Double.NaN : (readyAt[0] - start) / 1e9;
    f.firstLeaderSeconds = (watcher.firstLeaderNanos() - start) / 1e9;
    f.convergedShareSeconds =
        Arrays.stream(SHARES).map(q -> (watcher.convergedShareNanos(q) - start) / 1e9).toArray();
    Progress.line(
        String.format(
            Locale.ROOT,
            "scale: %d groups converged %.1f s after the operator process started",
            f.groups,
            f.coldStartSeconds));
  }

  /** Creates the groups and their pods, spread over the namespaces, from a few threads. */
  private static List<String> populate(KubernetesClient client, int groups, int namespaces)
      throws Exception {
    return create(client, 0, groups, namespaces, "scale-");
  }

  /**
   * Creates groups number {@code from} to {@code from + count - 1} and their ready pods (pods
   * first, as a Deployment's would exist before someone writes the group), from eight threads.
   */
  private static List<String> create(
      KubernetesClient client, int from, int count, int namespaces, String namespacePrefix)
      throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(8);
    List<String> keys = new ArrayList<>();
    List<Future<?>> futures = new ArrayList<>();
    try {
      for (int i = from; i < from + count; i++) {
        String ns = namespacePrefix + (i % namespaces);
        String name = String.format(Locale.ROOT, "g%04d", i);
        keys.add(ns + "/" + name);
        futures.add(
            pool.submit(
                () -> {
                  for (int p = 0; p < PODS_PER_GROUP; p++) {
                    client
                        .pods()
                        .resource(
                            Sandbox.readyPod(
                                ns,
                                name + "-" + p,
                                Map.of("app", name, ConvergenceWatcher.POD_LABEL, "true")))
                        .create();
                  }
                  LeaderGroup g = Sandbox.group(name, name);
                  g.getMetadata().setNamespace(ns);
                  g.getSpec()
                      .setLease(new LeaseSpec()); // the documented default: ttl 10s, renew 3s
                  client.resource(g).create();
                }));
      }
      for (Future<?> future : futures) {
        future.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return keys;
  }

  /**
   * {@link #BURST_GROUPS} new groups of ready pods created at once in the first namespace, measured
   * black-box: from the first create request to the informers showing every one converged.
   */
  private static Burst burst(
      KubernetesClient client,
      ConvergenceWatcher watcher,
      int existing,
      Supplier<Map<String, Long>> requests)
      throws Exception {
    long start = System.nanoTime();
    List<String> keys = create(client, existing, BURST_GROUPS, 1, "scale-");
    boolean converged =
        Waits.until(
            () -> watcher.convergedNanos(keys) > 0, Duration.ofSeconds(60), Duration.ofMillis(2));
    double seconds = converged ? (watcher.convergedNanos(keys) - start) / 1e9 : Double.NaN;
    return new Burst(keys.size(), seconds, requests.get());
  }

  private static Deletions deleteLeaders(
      KubernetesClient client,
      ConvergenceWatcher watcher,
      List<String> groupKeys,
      int count,
      Supplier<Map<String, Long>> requests)
      throws Exception {
    Map<String, String> oldLeaders = new LinkedHashMap<>();
    int step = Math.max(1, groupKeys.size() / count);
    for (int i = 0; i < groupKeys.size() && oldLeaders.size() < count; i += step) {
      String key = groupKeys.get(i);
      oldLeaders.put(key, watcher.leader(key));
    }
    ExecutorService pool = Executors.newFixedThreadPool(16);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> futures = new ArrayList<>();
    try {
      for (String pod : oldLeaders.values()) {
        String[] nsName = pod.split("/", 2);
        futures.add(
            pool.submit(
                () -> {
                  go.await();
                  client.pods().inNamespace(nsName[0]).withName(nsName[1]).delete();
                  return null;
                }));
      }
      Waits.sleep(Duration.ofMillis(200)); // every thread parked on the latch
      long start = System.nanoTime();
      go.countDown();
      for (Future<?> future : futures) {
        future.get();
      }
      boolean all =
          Waits.until(
              () -> watcher.replaced(oldLeaders).size() == oldLeaders.size(),
              Duration.ofSeconds(60),
              Duration.ofMillis(2));
      List<Double> perGroup = new ArrayList<>();
      long last = start;
      for (String g : watcher.replaced(oldLeaders)) {
        long at = watcher.leaderSinceNanos(g);
        perGroup.add((at - start) / 1e6);
        last = Math.max(last, at);
      }
      return new Deletions(
          oldLeaders.size(),
          all ? (last - start) / 1e6 : Double.NaN,
          Percentiles.of(perGroup),
          oldLeaders.size() - perGroup.size(),
          requests.get());
    } finally {
      pool.shutdownNow();
    }
  }
}
