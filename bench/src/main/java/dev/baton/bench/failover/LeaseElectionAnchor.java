package dev.baton.bench.failover;

import dev.baton.bench.harness.Progress;
import dev.baton.bench.harness.Waits;
import dev.baton.testkit.KubernetesUnderTest;
import dev.baton.testkit.RoleWatcher;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfig;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The anchor beside Baton's failover: the conventional Kubernetes way, each replica running
 * Fabric8's {@code LeaderElector} on a coordination.k8s.io Lease with client-go's default timings
 * (lease 15 s, renew deadline 10 s, retry 2 s) and labeling its own pod when it starts leading. A
 * trial stops the leader without releasing the Lease, as a killed process would, and deletes its
 * pod; it ends when a watcher sees another pod labeled leader.
 */
final class LeaseElectionAnchor implements AutoCloseable {

  static final String NS = "anchor";
  static final String ROLE = "bench.baton.dev/anchor-role";
  static final String LEASE_NAME = "anchor-election";
  static final Duration LEASE_DURATION = Duration.ofSeconds(15);
  static final Duration RENEW_DEADLINE = Duration.ofSeconds(10);
  static final Duration RETRY_PERIOD = Duration.ofSeconds(2);
  static final Duration TRIAL_TIMEOUT = Duration.ofSeconds(60);

  record Result(List<Double> millis, int timeouts) {}

  private final KubernetesUnderTest kube;
  private final KubernetesClient admin;
  private final Map<String, CompletableFuture<?>> running = new ConcurrentHashMap<>();

  /** Clients of stopped candidates stay open until the end: a killed process sends nothing. */
  private final List<KubernetesClient> clients = new ArrayList<>();

  private int nextPod;

  LeaseElectionAnchor(KubernetesUnderTest kube) {
    this.kube = kube;
    this.admin = kube.newClient();
  }

  Result run(int trials) {
    List<Double> millis = new ArrayList<>();
    int timeouts = 0;
    try (KubernetesClient watchClient = kube.newClient();
        RoleWatcher watcher = new RoleWatcher(watchClient, NS, ROLE)) {
      for (int i = 0; i < 3; i++) {
        startCandidate();
      }
      Waits.require(
          () -> watcher.leaders().size() == 1, Duration.ofSeconds(30), "the first Lease election");
      for (int t = 0; t < trials; t++) {
        Set<String> leaders = watcher.leaders();
        if (leaders.size() != 1) {
          throw new IllegalStateException("anchor: expected one leader, saw " + leaders);
        }
        String leader = leaders.iterator().next();
        int before = watcher.leaderChanges();
        long start = System.nanoTime();
        // Cancelling without releaseOnCancel leaves the Lease held until it expires.
        running.remove(leader).cancel(true);
        admin.pods().inNamespace(NS).withName(leader).delete();
        boolean moved =
            Waits.until(
                () -> watcher.leaderChanges() > before, TRIAL_TIMEOUT, Duration.ofMillis(5));
        if (moved) {
          millis.add((watcher.lastLeaderChangeNanos() - start) / 1e6);
        } else {
          timeouts++;
        }
        Progress.line(
            "failover: Lease anchor trial "
                + (t + 1)
                + "/"
                + trials
                + ": "
                + (moved ? Math.round(millis.get(millis.size() - 1)) + " ms" : "timed out"));
        // A replacement replica, with a new name as a Deployment would give it: a candidate with
        // the old identity would simply resume the unexpired Lease.
        startCandidate();
      }
    }
    return new Result(millis, timeouts);
  }

  private void startCandidate() {
    String name = "anchor-" + nextPod++;
    admin.pods().resource(Sandbox.readyPod(NS, name, Map.of("app", "anchor"))).create();
    KubernetesClient client = kube.newClient();
    clients.add(client);
    LeaderElectionConfig config =
        new LeaderElectionConfigBuilder()
            .withName("anchor")
            .withLock(new LeaseLock(NS, LEASE_NAME, name))
            .withLeaseDuration(LEASE_DURATION)
            .withRenewDeadline(RENEW_DEADLINE)
            .withRetryPeriod(RETRY_PERIOD)
            .withReleaseOnCancel(false)
            .withLeaderCallbacks(
                new LeaderCallbacks(() -> labelLeader(client, name), () -> {}, newLeader -> {}))
            .build();
    running.put(name, client.leaderElector().withConfig(config).build().start());
  }

  private static void labelLeader(KubernetesClient client, String pod) {
    client
        .pods()
        .inNamespace(NS)
        .withName(pod)
        .patch(
            PatchContext.of(PatchType.JSON_MERGE),
            "{\"metadata\":{\"labels\":{\"" + ROLE + "\":\"leader\"}}}");
  }

  @Override
  public void close() {
    running.values().forEach(f -> f.cancel(true));
    clients.forEach(KubernetesClient::close);
    admin.close();
  }
}
