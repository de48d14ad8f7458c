package dev.baton.bench.failover;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaseSpec;
import dev.baton.bench.harness.BenchConfig;
import dev.baton.bench.harness.Percentiles;
import dev.baton.bench.harness.Progress;
import dev.baton.bench.harness.Report;
import dev.baton.bench.harness.Waits;
import dev.baton.bench.scale.BenchRedis;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.OperatorProcess;
import dev.baton.testkit.RoleWatcher;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * Failover as users run it: the shipped jar started fresh in its own process ({@code java -jar},
 * the chart's heap cap), talking HTTP to the mock API server in this JVM, and no warm-up beyond
 * what its own start gives: the first trial is recorded like every other. The clock is the same
 * black-box one as {@link FailoverBench}'s. With {@code bench.previousJar}, the same for an earlier
 * operator, side by side.
 */
public final class ShippedJarFailover {

  private static final String APP = FailoverBench.APP;
  private static final String GROUP = FailoverBench.GROUP;
  private static final String ROLE = FailoverBench.ROLE;

  private final BenchConfig config;

  public ShippedJarFailover(BenchConfig config) {
    this.config = config;
  }

  /**
   * Trials of each kind left out of the warm percentiles: a fresh process's first trials carry its
   * JIT's and class loading's cost, which set its p99 over 100 trials, and comparing two operators
   * at steady state needs them apart.
   */
  static final int COLD_TRIALS = 10;

  /**
   * One operator's trials: all of them, the first of each kind on its own, and those after the
   * first {@link #COLD_TRIALS}.
   */
  record Result(
      String operator,
      Map<FailoverBench.Kind, Percentiles> all,
      Map<FailoverBench.Kind, Double> first,
      Map<FailoverBench.Kind, Percentiles> warm,
      Map<FailoverBench.Kind, Integer> timeouts,
      Duration started) {}

  public void run(Report report) throws Exception {
    List<Result> results = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    measureOrNote(results, failed, "current", config.operatorJar());
    if (config.previousJar() != null) {
      measureOrNote(results, failed, "previous", config.previousJar());
    }
    Report.Section s =
        report.section(
            "failover-process",
            "Failover with the shipped jar in its own process, started fresh (ms), on "
                + config.redisDescription(),
            "operator",
            "scenario",
            "trials",
            "first trial",
            "p50",
            "p90",
            "p99",
            "max",
            "p50 / p99 after " + COLD_TRIALS,
            "timeouts",
            "target p99");
    for (Result r : results) {
      for (FailoverBench.Kind k : FailoverBench.Kind.values()) {
        Percentiles p = r.all.get(k);
        s.row(
            r.operator,
            k.description,
            p.count(),
            r.first.get(k),
            p.p50(),
            p.p90(),
            p.p99(),
            p.max(),
            warm(r.warm.get(k)),
            r.timeouts.get(k),
            "< 100" + (p.count() > 0 && p.p99() < 100 ? ": met" : ": NOT met"));
      }
    }
    s.note(
        "The operator: java "
            + config.operatorJvm()
            + config.classArchiveNote()
            + " -jar <jar>, a new process per operator, KUBERNETES_MASTER set to the mock API"
            + " server (CRUD mode) in the benchmark JVM, one LeaderGroup of 3 ready pods with the"
            + " default lease (ttl 10s, renew 3s). Trials start as soon as the first leader is"
            + " labeled and the group has settled; the two kinds alternate from the first trial on,"
            + " "
            + config.processTrials()
            + " of each, none left out but in the warm column, which leaves out each kind's first "
            + COLD_TRIALS
            + ". Clock and settling as in the in-process section.");
    s.note(
        "Anchor (issue 15, the same measurement before this mode existed, on this machine): pod"
            + " deleted p50 45 / max 83 ms, not ready p50 68 / max 159 ms.");
    for (Result r : results) {
      s.note(
          r.operator
              + ": started and leading "
              + Report.format(r.started.toMillis() / 1000.0)
              + " s after the process was started.");
    }
    failed.forEach(s::note);
  }

  private static String warm(Percentiles p) {
    return p.count() == 0 ? "none" : Report.format(p.p50()) + " / " + Report.format(p.p99());
  }

  private void measureOrNote(List<Result> results, List<String> failed, String name, Path jar) {
    try {
      results.add(measure(name, jar));
    } catch (Exception | AssertionError e) {
      failed.add(name + ": did not complete: " + e.getMessage());
    }
  }

  private Result measure(String name, Path jar) throws Exception {
    Progress.line("failover-process: " + name + " operator " + jar);
    Files.createDirectories(config.out());
    Path log = config.out().resolve("operator-failover-process-" + name + ".log");
    Map<FailoverBench.Kind, List<Double>> millis = new EnumMap<>(FailoverBench.Kind.class);
    Map<FailoverBench.Kind, Integer> timeouts = new EnumMap<>(FailoverBench.Kind.class);
    for (FailoverBench.Kind k : FailoverBench.Kind.values()) {
      millis.put(k, new ArrayList<>());
      timeouts.put(k, 0);
    }
    try (EmbeddedKubernetes kube = EmbeddedKubernetes.start();
        BenchRedis redis = BenchRedis.start(config.redisCluster());
        KubernetesClient admin = kube.newClient();
        KubernetesClient watchClient = kube.newClient();
        RoleWatcher watcher = new RoleWatcher(watchClient, Sandbox.NS, ROLE)) {
      for (int i = 0; i < FailoverBench.PODS; i++) {
        admin.pods().resource(pod(APP + "-" + i)).create();
      }
      LeaderGroup group = Sandbox.group(GROUP, APP);
      group.getSpec().setLease(new LeaseSpec());
      // Left out, as a user would: an earlier operator's model may not know the field.
      group.getSpec().setFailoverDelay(null);
      admin.resource(group).create();
      // Before the clock starts: the first call for a jar trains its class archive.
      String jvm = config.operatorJvm(jar);
      long start = System.nanoTime();
      try (OperatorProcess operator =
          OperatorProcess.ofJar(
                  "failover-" + name,
                  kube,
                  Map.of("BATON_REDIS_URL", redis.url(), "BATON_LEADER_ELECTION", "false"),
                  jar,
                  jvm,
                  log)
              .start()) {
        Waits.require(() -> settled(admin, watcher), Duration.ofMinutes(2), "the first election");
        Duration started = Duration.ofNanos(System.nanoTime() - start);
        for (int i = 0; i < 2 * config.processTrials(); i++) {
          FailoverBench.Kind kind = FailoverBench.Kind.values()[i % 2];
          double ms = trial(admin, watcher, kind);
          if (Double.isNaN(ms)) {
            timeouts.merge(kind, 1, Integer::sum);
          } else {
            millis.get(kind).add(ms);
          }
          if (!operator.alive()) {
            throw new IllegalStateException("the operator process exited; see " + log);
          }
        }
        Map<FailoverBench.Kind, Percentiles> all = new EnumMap<>(FailoverBench.Kind.class);
        Map<FailoverBench.Kind, Double> first = new EnumMap<>(FailoverBench.Kind.class);
        Map<FailoverBench.Kind, Percentiles> warm = new EnumMap<>(FailoverBench.Kind.class);
        millis.forEach(
            (k, v) -> {
              all.put(k, Percentiles.of(v));
              first.put(k, v.isEmpty() ? Double.NaN : v.get(0));
              warm.put(k, Percentiles.of(v.subList(Math.min(COLD_TRIALS, v.size()), v.size())));
            });
        return new Result(name, all, first, warm, timeouts, started);
      }
    }
  }

  private static double trial(
      KubernetesClient admin, RoleWatcher watcher, FailoverBench.Kind kind) {
    String leader = watcher.leaders().iterator().next();
    int before = watcher.leaderChanges();
    long start = System.nanoTime();
    switch (kind) {
      case DELETED -> admin.pods().inNamespace(Sandbox.NS).withName(leader).delete();
      case NOT_READY -> FailoverBench.setReady(admin, leader, false);
    }
    boolean moved =
        Waits.until(
            () -> watcher.leaderChanges() > before,
            FailoverBench.TRIAL_TIMEOUT,
            Duration.ofMillis(1));
    double ms = moved ? (watcher.lastLeaderChangeNanos() - start) / 1e6 : Double.NaN;
    switch (kind) {
      case DELETED -> {
        Waits.require(
            () -> admin.pods().inNamespace(Sandbox.NS).withName(leader).get() == null,
            FailoverBench.SETTLE_TIMEOUT,
            "the old leader pod gone");
        admin.pods().resource(pod(leader)).create();
      }
      case NOT_READY -> FailoverBench.setReady(admin, leader, true);
    }
    Waits.require(
        () -> settled(admin, watcher),
        FailoverBench.SETTLE_TIMEOUT,
        "the group to settle after a trial (" + kind + " " + leader + ")");
    return ms;
  }

  private static io.fabric8.kubernetes.api.model.Pod pod(String name) {
    return Sandbox.readyPod(Sandbox.NS, name, Map.of("app", APP));
  }

  /** One leader, every pod labeled, and the status counting every pod as a ready candidate. */
  private static boolean settled(KubernetesClient admin, RoleWatcher watcher) {
    if (watcher.leaders().size() != 1) {
      return false;
    }
    long labeled =
        admin.pods().inNamespace(Sandbox.NS).withLabel("app", APP).list().getItems().stream()
            .filter(p -> p.getMetadata().getLabels().containsKey(ROLE))
            .count();
    if (labeled != FailoverBench.PODS) {
      return false;
    }
    LeaderGroup g =
        admin.resources(LeaderGroup.class).inNamespace(Sandbox.NS).withName(GROUP).get();
    return g != null
        && g.getStatus() != null
        && Integer.valueOf(FailoverBench.PODS).equals(g.getStatus().getCandidates())
        && watcher.leaders().contains(g.getStatus().getLeader());
  }
}
