package dev.baton.bench.routing;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderGroupSpec;
import dev.baton.api.v1alpha1.LeaderService;
import dev.baton.api.v1alpha1.LeaderServicePort;
import dev.baton.api.v1alpha1.LeaseSpec;
import dev.baton.bench.harness.BenchConfig;
import dev.baton.bench.harness.Percentiles;
import dev.baton.bench.harness.Progress;
import dev.baton.bench.harness.Report;
import dev.baton.bench.harness.Waits;
import dev.baton.operator.BatonOperator;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.EndpointsController;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.api.model.discovery.v1.EndpointSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Traffic following the leader: from the leader pod's deletion to the Service's EndpointSlice
 * naming the new leader as its only ready endpoint, in the label mode (a Service selecting the role
 * label, its slice written by an EndpointSlice controller) and the one-write mode (spec.service,
 * the slice written by Baton). Operator in this JVM, mock API server in CRUD mode, real
 * redis-server, as the failover benchmark.
 */
public final class RoutingBench {

  static final String APP = "routing";
  static final String GROUP = "routing";
  static final String ROLE = LeaderGroupSpec.DEFAULT_ROLE_LABEL;
  static final int PODS = 3;
  static final Duration TRIAL_TIMEOUT = Duration.ofSeconds(15);

  enum Mode {
    LABEL("label mode: Service selecting the role label", "routing-leader-slice"),
    ONE_WRITE("one-write mode: spec.service, slice written by Baton", "routing-primary-baton");

    final String description;
    final String slice;

    Mode(String description, String slice) {
      this.description = description;
      this.slice = slice;
    }
  }

  private final BenchConfig config;

  public RoutingBench(BenchConfig config) {
    this.config = config;
  }

  public void run(Report report) throws Exception {
    Report.Section s =
        report.section(
            "routing",
            "Traffic follows the leader: leader pod deleted to the Service's EndpointSlice naming"
                + " only the new leader (ms)",
            "mode",
            "failovers",
            "p50",
            "p90",
            "p99",
            "max",
            "timeouts",
            "slice versions listing 2+ pods");
    for (Mode mode : Mode.values()) {
      Result r = failovers(mode, config.routingTrials());
      Percentiles p = Percentiles.of(r.ms);
      s.row(mode.description, p.count(), p.p50(), p.p90(), p.p99(), p.max(), r.timeouts, r.joined);
    }
    s.note(
        "Each failover: the leader pod is deleted (the mock API server deletes at once) and a pod"
            + " of the same name is created again. Timed with System.nanoTime() in one JVM from"
            + " just before the delete call to the benchmark's own EndpointSlice watch delivering"
            + " a version whose only ready endpoint is the new leader.");
    s.note(
        "Label mode: the test kit's EndpointSlice controller (testkit/EndpointsController) stands"
            + " in for kube-controller-manager's: it reacts to pod and Service watch events at"
            + " once, without the real controller's work queue, rate limits or batching, so this"
            + " row is a floor for the label mode. One-write mode: Baton's own JSON Patch of the"
            + " slice, in the reconcile that labels the new leader.");
    s.note(
        "Anchor (the issue): after the slice, every node's kube-proxy reprograms its rules"
            + " (minimum sync period 1 s by default); upstream scale tests report network"
            + " programming latency of about 1.5 s at p50 and 7 s at p99. Neither mode changes"
            + " that last hop; the one-write mode removes the EndpointSlice controller's.");
  }

  private record Result(List<Double> ms, int timeouts, int joined) {}

  private Result failovers(Mode mode, int trials) throws Exception {
    List<Double> ms = new ArrayList<>();
    int timeouts = 0;
    AtomicReference<String> onlyReady = new AtomicReference<>();
    AtomicReference<Long> seenAt = new AtomicReference<>(0L);
    AtomicInteger joined = new AtomicInteger();
    try (Sandbox sandbox = new Sandbox(EmbeddedKubernetes.start(), BatonOperator::launch);
        KubernetesClient watchClient = sandbox.kube.newClient();
        EndpointsController controller = new EndpointsController(sandbox.client, Sandbox.NS)) {
      sandbox.startOperator();
      for (int i = 0; i < PODS; i++) {
        sandbox.createPod(pod(APP + "-" + i, i));
      }
      LeaderGroup group = Sandbox.group(GROUP, APP);
      group.getSpec().setLease(new LeaseSpec());
      if (mode == Mode.ONE_WRITE) {
        group
            .getSpec()
            .setService(
                new LeaderService(
                    "routing-primary",
                    List.of(new LeaderServicePort("http", 80, new IntOrString("http")))));
      } else {
        sandbox
            .client
            .services()
            .resource(
                new ServiceBuilder()
                    .withNewMetadata()
                    .withName("routing-leader")
                    .withNamespace(Sandbox.NS)
                    .endMetadata()
                    .withNewSpec()
                    .withSelector(Map.of("app", APP, ROLE, "leader"))
                    .addNewPort()
                    .withName("http")
                    .withPort(80)
                    .withTargetPort(new IntOrString("http"))
                    .endPort()
                    .endSpec()
                    .build())
            .create();
      }
      try (Watch w =
          watchClient
              .discovery()
              .v1()
              .endpointSlices()
              .inNamespace(Sandbox.NS)
              .watch(
                  new Watcher<>() {
                    @Override
                    public void eventReceived(Action action, EndpointSlice slice) {
                      long now = System.nanoTime();
                      if (action == Action.DELETED
                          || !mode.slice.equals(slice.getMetadata().getName())) {
                        return;
                      }
                      List<String> ready =
                          slice.getEndpoints() == null
                              ? List.of()
                              : slice.getEndpoints().stream()
                                  .filter(
                                      e ->
                                          e.getConditions() == null
                                              || !Boolean.FALSE.equals(
                                                  e.getConditions().getReady()))
                                  .map(e -> e.getTargetRef().getName())
                                  .toList();
                      if (ready.size() > 1) {
                        joined.incrementAndGet();
                      }
                      String only = ready.size() == 1 ? ready.get(0) : null;
                      if (only != null && !only.equals(onlyReady.get())) {
                        seenAt.set(now);
                      }
                      onlyReady.set(only);
                    }

                    @Override
                    public void onClose(WatcherException cause) {}
                  })) {
        sandbox.create(group);
        Waits.require(
            () -> onlyReady.get() != null && sandbox.leaders(ROLE).contains(onlyReady.get()),
            TRIAL_TIMEOUT,
            "the first route");
        for (int i = 0; i < trials; i++) {
          String old = onlyReady.get();
          int index = Integer.parseInt(old.substring(old.lastIndexOf('-') + 1));
          long start = System.nanoTime();
          sandbox.deletePod(old);
          boolean done =
              Waits.until(
                  () -> {
                    String now = onlyReady.get();
                    return now != null && !now.equals(old) && seenAt.get() - start > 0;
                  },
                  TRIAL_TIMEOUT,
                  Duration.ofMillis(1));
          if (done) {
            ms.add((seenAt.get() - start) / 1e6);
          } else {
            timeouts++;
          }
          sandbox.createPod(pod(old, index + 10 * (i + 1)));
          Waits.require(
              () -> sandbox.roles(ROLE).size() == PODS && sandbox.leaders(ROLE).size() == 1,
              TRIAL_TIMEOUT,
              "the group to settle");
          if ((i + 1) % 25 == 0) {
            Progress.line("routing " + mode + ": " + (i + 1) + "/" + trials);
          }
        }
      }
    }
    return new Result(ms, timeouts, joined.get());
  }

  /** A ready pod with an IP and a container port named http. */
  private static Pod pod(String name, int n) {
    return new PodBuilder(Sandbox.readyPod(Sandbox.NS, name, Map.of("app", APP)))
        .editSpec()
        .editFirstContainer()
        .addNewPort()
        .withName("http")
        .withContainerPort(8080)
        .endPort()
        .endContainer()
        .endSpec()
        .editStatus()
        .withPodIP("10.2." + (n / 250) + "." + (n % 250 + 1))
        .endStatus()
        .build();
  }
}
