package dev.baton.bench.failover;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.bench.harness.BenchConfig;
import dev.baton.bench.harness.Percentiles;
import dev.baton.bench.harness.Progress;
import dev.baton.bench.harness.Report;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.FaultInjector;
import dev.baton.testkit.LocalRedis;
import dev.baton.testkit.OperatorProcess;
import dev.baton.testkit.RoleWatcher;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The operator's own failover, as users run it: two processes of the shipped jar with leader
 * election on, one active. Each trial SIGKILLs the active one and deletes the leader pod right
 * after; the clock runs from the kill to a watcher seeing another pod labeled leader. The killed
 * process is then started again, as a kubelet would, and becomes the standby. Beside it, the same
 * with the previous operator (its 15 s Lease through JOSDK's elector) when {@code
 * bench.previousJar} names its jar.
 */
public final class OperatorFailoverBench {

  private static final String NS = Sandbox.NS;
  private static final String ROLE = FailoverBench.ROLE;
  private static final Duration TRIAL_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(60);

  private final BenchConfig config;

  public OperatorFailoverBench(BenchConfig config) {
    this.config = config;
  }

  public void run(Report report) throws Exception {
    Result now = measure("shipped", config.operatorJar());
    Result before = config.previousJar() == null ? null : measure("previous", config.previousJar());
    Report.Section s =
        report.section(
            "operator-failover",
            "Operator failover: the active replica killed, then the leader pod deleted -> new leader"
                + " labeled (ms)",
            "operator",
            "trials",
            "p50",
            "p90",
            "p99",
            "max",
            "timeouts");
    row(s, "Baton, default Lease (1.5 s), " + config.operatorJar().getFileName(), now);
    if (before != null) {
      row(s, "previous operator, Lease 15 s / 10 s / 2 s (" + config.previousJar() + ")", before);
      double[] r = before.percentiles().ratios(now.percentiles());
      s.row("Ratio previous ÷ Baton", null, r[0], r[1], r[2], r[3]);
    }
    s.note(
        "Two operator processes (java -jar, "
            + config.operatorJvm()
            + config.classArchiveNote()
            + ") with leader election"
            + " on, against the mock API server in this JVM and a local redis-server; one LeaderGroup"
            + " of "
            + FailoverBench.PODS
            + " ready pods. Each trial: the process holding the Lease"
            + " baton-operator gets SIGKILL, and the leader pod is deleted right after; the clock"
            + " starts at the kill and stops when the pod watch shows another pod labeled leader."
            + " Then the killed process is started again and the group settles before the next trial.");
    s.note(
        "Target (docs/design.md): p99 under 2 s. Measured p99: "
            + Report.format(now.percentiles().p99())
            + " ms: "
            + (now.percentiles().p99() < 2000 && now.timeouts() == 0 ? "met" : "NOT met")
            + ".");
  }

  private static void row(Report.Section s, String name, Result r) {
    Percentiles p = r.percentiles();
    s.row(name, p.count(), p.p50(), p.p90(), p.p99(), p.max(), r.timeouts());
  }

  private record Result(Percentiles percentiles, int timeouts) {}

  private Result measure(String label, Path jar) throws Exception {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar + " is missing");
    }
    List<Double> millis = new ArrayList<>();
    int timeouts = 0;
    Path logs = Files.createDirectories(config.out().resolve("operator-failover-" + label));
    // The fault injector stays off; it answers the permission review the previous operator's
    // elector sends, as a real API server would.
    try (EmbeddedKubernetes kube = EmbeddedKubernetes.start(real -> new FaultInjector(real, 1));
        LocalRedis redis = LocalRedis.start();
        KubernetesClient client = kube.newClient();
        RoleWatcher watcher = new RoleWatcher(client, NS, ROLE)) {
      for (int i = 0; i < FailoverBench.PODS; i++) {
        client.pods().resource(Sandbox.readyPod(NS, "pod-" + i, Map.of("app", "ha"))).create();
      }
      LeaderGroup group = Sandbox.group("ha", "ha");
      client.resource(group).create();
      Map<String, String> env =
          Map.of(
              "BATON_REDIS_URL",
              redis.url(),
              "BATON_LEADER_ELECTION",
              "true",
              "BATON_LEADER_ELECTION_NAMESPACE",
              NS);
      List<OperatorProcess> replicas = new ArrayList<>();
      for (String name : List.of("op-a", "op-b")) {
        replicas.add(
            OperatorProcess.ofJar(
                    name, kube, env, jar, config.operatorJvm(jar), logs.resolve(name + ".log"))
                .start());
      }
      try {
        for (int trial = 0; trial < config.operatorFailoverTrials(); trial++) {
          settle(client, replicas, watcher);
          String holder =
              client
                  .resources(Lease.class)
                  .inNamespace(NS)
                  .withName("baton-operator")
                  .get()
                  .getSpec()
                  .getHolderIdentity();
          OperatorProcess active =
              replicas.stream().filter(r -> r.name().equals(holder)).findFirst().orElseThrow();
          String leader = watcher.leaders().iterator().next();
          int changes = watcher.leaderChanges();
          long killed = System.nanoTime();
          active.kill();
          client.pods().inNamespace(NS).withName(leader).delete();
          double ms = waitForChange(watcher, changes, killed);
          if (Double.isNaN(ms)) {
            timeouts++;
          } else {
            millis.add(ms);
          }
          client.pods().resource(Sandbox.readyPod(NS, leader, Map.of("app", "ha"))).create();
          active.start();
          Progress.line(
              "operator failover ("
                  + label
                  + "): trial "
                  + (trial + 1)
                  + ": "
                  + (Double.isNaN(ms) ? "timeout" : Report.format(ms) + " ms"));
        }
      } finally {
        replicas.forEach(OperatorProcess::close);
      }
    }
    return new Result(Percentiles.of(millis), timeouts);
  }

  /** One leader, every pod labeled, both replicas answering /readyz, the Lease held. */
  private static void settle(
      KubernetesClient client, List<OperatorProcess> replicas, RoleWatcher watcher) {
    long deadline = System.nanoTime() + SETTLE_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      boolean ready = replicas.stream().allMatch(OperatorProcess::ready);
      Lease lease = client.resources(Lease.class).inNamespace(NS).withName("baton-operator").get();
      boolean held =
          lease != null
              && lease.getSpec().getHolderIdentity() != null
              && !lease.getSpec().getHolderIdentity().isEmpty();
      long labeled =
          client.pods().inNamespace(NS).list().getItems().stream()
              .filter(
                  p ->
                      p.getMetadata().getLabels() != null
                          && p.getMetadata().getLabels().containsKey(ROLE))
              .count();
      if (ready && held && watcher.leaders().size() == 1 && labeled == FailoverBench.PODS) {
        return;
      }
      sleep(50);
    }
    throw new IllegalStateException("the group did not settle within " + SETTLE_TIMEOUT);
  }

  private static double waitForChange(RoleWatcher watcher, int changes, long startNanos) {
    long deadline = startNanos + TRIAL_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (watcher.leaderChanges() > changes) {
        return (watcher.lastLeaderChangeNanos() - startNanos) / 1e6;
      }
      sleep(2);
    }
    return Double.NaN;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
