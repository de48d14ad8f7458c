package dev.baton.bench.failover;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.api.v1alpha1.LeaseSpec;
import dev.baton.bench.harness.BenchConfig;
import dev.baton.bench.harness.Percentiles;
import dev.baton.bench.harness.Progress;
import dev.baton.bench.harness.Report;
import dev.baton.bench.harness.Waits;
import dev.baton.operator.BatonOperator;
import dev.baton.operator.metrics.FailoverTrace;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.LatencyProfile;
import dev.baton.testkit.RoleWatcher;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The operator's failover path, step by step: from the pod event reaching the operator to each
 * label write answered, read from the operator's {@link FailoverTrace}, on the plain mock API
 * server and, in the same run, on the same mock with kube-apiserver v1.32's latency profile (every
 * request answered about as long after it arrived as the real server's histogram says, each watch
 * event 2-10 ms late).
 */
public final class FailoverPathBench {

  static final String APP = "path";
  static final String GROUP = "path";
  static final String ROLE = LeaderGroupSpec.DEFAULT_ROLE_LABEL;
  static final int PODS = 3;
  static final long SEED = 59;

  /** Keeps a deleted pod terminating, as a kubelet stopping its containers does on a node. */
  static final String FINALIZER = "bench.baton.dev/graceful";

  static final Duration TRIAL_TIMEOUT = Duration.ofSeconds(10);
  static final Duration SETTLE_TIMEOUT = Duration.ofSeconds(30);

  enum Kind {
    TERMINATING(
        "leader pod deleted: terminating, then turned not ready by its kubelet (two label writes)"),
    NOT_READY("leader turned not ready (two label writes)"),
    DELETED("leader pod deleted and gone at once (one label write)");

    final String description;

    Kind(String description) {
      this.description = description;
    }
  }

  enum Server {
    PLAIN("mock API server, plain"),
    PROFILE("mock API server with kube-apiserver v1.32's latency profile");

    final String description;

    Server(String description) {
      this.description = description;
    }
  }

  private final BenchConfig config;
  private final Map<Server, Map<Kind, List<FailoverPath>>> paths = new EnumMap<>(Server.class);
  private final Map<Server, Map<Kind, Integer>> timeouts = new EnumMap<>(Server.class);
  private final Map<Server, Map<Kind, Integer>> overlaps = new EnumMap<>(Server.class);
  private final Map<Server, List<String>> overlapHistories = new EnumMap<>(Server.class);
  private final Map<Server, Integer> outOfOrder = new EnumMap<>(Server.class);
  private final Map<Server, List<Double>> anchor = new EnumMap<>(Server.class);
  private final Queue<FailoverTrace.Stamp> stamps = new ConcurrentLinkedQueue<>();

  public FailoverPathBench(BenchConfig config) {
    this.config = config;
  }

  public void run(Report report) throws Exception {
    for (Server server : Server.values()) {
      paths.put(server, new EnumMap<>(Kind.class));
      timeouts.put(server, new EnumMap<>(Kind.class));
      overlaps.put(server, new EnumMap<>(Kind.class));
      overlapHistories.put(server, new ArrayList<>());
      for (Kind k : Kind.values()) {
        paths.get(server).put(k, new ArrayList<>());
        timeouts.get(server).put(k, 0);
        overlaps.get(server).put(k, 0);
      }
      FailoverTrace.to(
          s -> {
            if (s.group().equals(Sandbox.NS + "/" + GROUP)) {
              stamps.add(s);
            }
          });
      try {
        runOn(server);
      } finally {
        FailoverTrace.to(null);
      }
    }
    report(report);
  }

  private void runOn(Server server) {
    EmbeddedKubernetes kube = EmbeddedKubernetes.start();
    if (server == Server.PROFILE) {
      kube.latency(LatencyProfile.kubeApiserver132(SEED));
    }
    try (Sandbox sandbox = new Sandbox(kube, BatonOperator::launch);
        KubernetesClient watchClient = sandbox.kube.newClient()) {
      sandbox.startOperator();
      for (int i = 0; i < PODS; i++) {
        create(sandbox, APP + "-" + i);
      }
      LeaderGroup group = Sandbox.group(GROUP, APP);
      group.getSpec().setLease(new LeaseSpec());
      sandbox.create(group);
      try (RoleWatcher watcher = new RoleWatcher(watchClient, Sandbox.NS, ROLE)) {
        Waits.require(() -> settled(sandbox, watcher), SETTLE_TIMEOUT, "the first election");
        anchor.put(server, twoPatches(sandbox));
        int total = config.failoverWarmup() + Kind.values().length * config.processTrials();
        for (int i = 0; i < total; i++) {
          Kind kind = Kind.values()[i % Kind.values().length];
          int seenBefore = watcher.violations().size();
          FailoverPath path = trial(sandbox, watcher, kind);
          // Counted in warm-up trials too: no trial may show two leaders.
          if (watcher.violations().size() > seenBefore) {
            overlaps
                .get(server)
                .merge(kind, watcher.violations().size() - seenBefore, Integer::sum);
            List<String> h = watcher.history();
            overlapHistories.get(server).add(h.subList(Math.max(0, h.size() - 20), h.size()) + "");
          }
          if (i < config.failoverWarmup()) {
            continue;
          }
          if (path == null) {
            timeouts.get(server).merge(kind, 1, Integer::sum);
          } else {
            paths.get(server).get(kind).add(path);
          }
        }
        outOfOrder.put(server, watcher.outOfOrder().size());
        Progress.line(
            "failover-path: "
                + server
                + " done; two leaders seen "
                + watcher.violations().size()
                + " times, watch events out of order "
                + watcher.outOfOrder().size());
      }
    }
  }

  /** One failover; null when the trace shows no promotion within the timeout. */
  private FailoverPath trial(Sandbox sandbox, RoleWatcher watcher, Kind kind) {
    Set<String> leaders = watcher.leaders();
    if (leaders.size() != 1) {
      throw new IllegalStateException("expected one leader before a trial, saw " + leaders);
    }
    String leader = leaders.iterator().next();
    if (kind == Kind.DELETED) {
      // Gone at once when deleted: without the finalizer, as a pod no kubelet runs.
      releaseFinalizer(sandbox, leader);
    }
    quiet();
    int before = watcher.leaderChanges();
    stamps.clear();
    long start = System.nanoTime();
    switch (kind) {
      case TERMINATING -> {
        sandbox.deletePod(leader);
        // The kubelet stops the containers and reports the pod not ready.
        FailoverBench.setReady(sandbox.client, leader, false);
      }
      case NOT_READY -> FailoverBench.setReady(sandbox.client, leader, false);
      case DELETED -> sandbox.deletePod(leader);
    }
    boolean moved =
        Waits.until(() -> watcher.leaderChanges() > before, TRIAL_TIMEOUT, Duration.ofMillis(1));
    long seen = moved ? watcher.lastLeaderChangeNanos() : -1;
    // Until the reconcile that labeled the new leader ended, for the trace of its later steps.
    FailoverPath[] path = new FailoverPath[1];
    Waits.until(
        () -> {
          path[0] = FailoverPath.of(List.copyOf(stamps), leader, start, seen);
          return path[0] != null
              && path[0].stamps().get(path[0].stamps().size() - 1).step()
                  == FailoverTrace.Step.RECONCILE_ENDED;
        },
        TRIAL_TIMEOUT,
        Duration.ofMillis(5));
    switch (kind) {
      case TERMINATING -> {
        releaseFinalizer(sandbox, leader);
        Waits.require(() -> sandbox.pod(leader) == null, SETTLE_TIMEOUT, leader + " gone");
        create(sandbox, leader);
      }
      case NOT_READY -> FailoverBench.setReady(sandbox.client, leader, true);
      case DELETED -> create(sandbox, leader);
    }
    if (!Waits.until(() -> settled(sandbox, watcher), SETTLE_TIMEOUT, Duration.ofMillis(5))) {
      throw new IllegalStateException(
          "no settled group after a trial ("
              + kind
              + " "
              + leader
              + "): the watcher sees leaders "
              + watcher.leaders()
              + ", events out of order "
              + watcher.outOfOrder());
    }
    return moved ? path[0] : null;
  }

  /**
   * The anchor: two PATCHes of a pod's labels back to back from the benchmark's client, answered
   * one after the other, on the same server: the floor of two writes in order.
   */
  private List<Double> twoPatches(Sandbox sandbox) {
    List<Double> ms = new ArrayList<>();
    String pod = APP + "-0";
    for (int i = 0; i < config.processTrials(); i++) {
      long start = System.nanoTime();
      for (String n : List.of(i + "a", i + "b")) {
        sandbox
            .client
            .pods()
            .inNamespace(Sandbox.NS)
            .withName(pod)
            .patch(
                PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"labels\":{\"bench.baton.dev/anchor\":\"" + n + "\"}}}");
      }
      ms.add((System.nanoTime() - start) / 1e6);
    }
    return ms;
  }

  /** Waits until the operator took no step for the group for 100 ms, so a trial starts idle. */
  private void quiet() {
    Waits.require(
        () -> {
          int n = stamps.size();
          Waits.sleep(Duration.ofMillis(100));
          return stamps.size() == n;
        },
        SETTLE_TIMEOUT,
        "the operator to be idle");
  }

  private static void create(Sandbox sandbox, String name) {
    Pod pod = Sandbox.readyPod(Sandbox.NS, name, Map.of("app", APP));
    pod.getMetadata().setFinalizers(List.of(FINALIZER));
    sandbox.createPod(pod);
  }

  private static void releaseFinalizer(Sandbox sandbox, String name) {
    sandbox
        .client
        .pods()
        .inNamespace(Sandbox.NS)
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
  }

  /** One leader, every pod labeled, and the status counting every pod as a ready candidate. */
  private static boolean settled(Sandbox sandbox, RoleWatcher watcher) {
    if (watcher.leaders().size() != 1 || sandbox.roles(ROLE).size() != PODS) {
      return false;
    }
    LeaderGroup g = sandbox.get(GROUP);
    return g != null
        && g.getStatus() != null
        && Integer.valueOf(PODS).equals(g.getStatus().getCandidates())
        && watcher.leaders().contains(g.getStatus().getLeader());
  }

  private void report(Report report) {
    Report.Section s =
        report.section(
            "failover-path",
            "The operator's failover path: from the pod event at the operator to each label write"
                + " answered (ms, p50 / p99)",
            "server",
            "failover",
            "trials",
            "change → event at the operator",
            "event → reconcile started",
            "event → old leader demoted",
            "event → new leader labeled",
            "change → new leader seen by a watcher",
            "label writes sent (max)",
            "lease reads before the labels (max)",
            "status writes before the labels (max)",
            "two leaders seen",
            "timeouts");
    for (Server server : Server.values()) {
      Percentiles a = Percentiles.of(anchor.get(server));
      s.row(
          server.description,
          "anchor: two pod PATCHes back to back from the benchmark's client",
          a.count(),
          null,
          null,
          null,
          Report.format(a.p50()) + " / " + Report.format(a.p99()));
      for (Kind kind : Kind.values()) {
        List<FailoverPath> p = paths.get(server).get(kind);
        s.row(
            server.description,
            kind.description,
            p.size(),
            FailoverPath.both(p, FailoverPath::eventAfterRequest),
            FailoverPath.both(p, FailoverPath::reconcileStarted),
            FailoverPath.both(p, FailoverPath::demoted),
            FailoverPath.both(p, FailoverPath::promoted),
            FailoverPath.both(p, FailoverPath::seenByWatcher),
            FailoverPath.max(p, FailoverPath::labelAttempts),
            FailoverPath.max(p, FailoverPath::leaseReads),
            FailoverPath.max(p, FailoverPath::statusWritesBeforeLabels),
            overlaps.get(server).get(kind),
            timeouts.get(server).get(kind));
      }
    }
    s.note(
        "One LeaderGroup of "
            + PODS
            + " ready pods, default lease (ttl 10s, renew 3s), one redis-server, the operator in"
            + " the benchmark JVM (Sandbox); the three kinds alternate after "
            + config.failoverWarmup()
            + " unrecorded warm-up trials, each started once the operator took no step for the"
            + " group for 100 ms. Every pod carries a finalizer of the benchmark's, so a deleted pod"
            + " stays terminating as on a node, and right after the DELETE its 'kubelet' (the"
            + " benchmark) turns it not ready, as a real kubelet does when it stops the"
            + " containers; for the third kind the finalizer is taken off first.");
    s.note(
        "The event is the first event of the old leader's pod that the operator's pod informer"
            + " handed to the LeaderGroup controller (FailoverTrace, System.nanoTime in this JVM);"
            + " each label write counts when its PATCH was answered. The latency profile is"
            + " LatencyProfile.kubeApiserver132(seed "
            + SEED
            + "): a pod PATCH 10 % under 5 ms, 80 % under 25, 99 % under 100; a read 84 % under"
            + " 5 ms; a watch event 2-10 ms after its write (/work/shared/REAL-SERVER.md); each"
            + " request held its drawn time less what the mock lately took to handle one of its"
            + " kind, so that its answer comes about the drawn time after it arrived.");
    s.note(
        "'two leaders seen': times a RoleWatcher (one pod watch of the namespace) held two pods"
            + " labeled leader after an event, warm-up trials included. Its events arrive in the"
            + " order the server wrote them, as a real server's watch delivers them (the test kit's"
            + " late events keep that order); watch events that arrived after a later write's, per"
            + " server: "
            + outOfOrder
            + ".");
    for (Server server : Server.values()) {
      overlapHistories.get(server).forEach(h -> s.note(server.description + ": " + h));
    }
    traceOfOne(report);
  }

  /** The median failover of the first kind, step by step, on each server. */
  private void traceOfOne(Report report) {
    Report.Section t =
        report.section(
            "failover-path-trace",
            "One failover, step by step (the median of '" + Kind.TERMINATING.description + "')",
            "server",
            "ms after the pod event",
            "step",
            "concerning");
    for (Server server : Server.values()) {
      List<FailoverPath> p = new ArrayList<>(paths.get(server).get(Kind.TERMINATING));
      if (p.isEmpty()) {
        continue;
      }
      p.sort((a, b) -> Double.compare(a.promoted(), b.promoted()));
      FailoverPath median = p.get((p.size() - 1) / 2);
      for (FailoverTrace.Stamp st : median.stamps()) {
        t.row(
            server.description,
            (st.nanos() - median.eventNanos()) / 1e6,
            st.step().toString(),
            st.detail());
      }
    }
  }
}
