package dev.baton.bench.agent;

import dev.baton.bench.harness.BenchConfig;
import dev.baton.bench.harness.Percentiles;
import dev.baton.bench.harness.Progress;
import dev.baton.bench.harness.Report;
import dev.baton.bench.harness.Waits;
import dev.baton.operator.BatonOperator;
import dev.baton.testkit.KubernetesUnderTest;
import dev.baton.testkit.Sandbox;
import dev.baton.testkit.SteppedClock;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The agent's gate, the shipped jar in processes of its own (one per simulated pod, a kubeconfig on
 * the mock API server), the operator in this JVM: how soon a connection through the old leader's
 * gate is cut, how soon the new leader's gate accepts, whether any byte reached a demoted pod's
 * application (in ordinary hand-overs and under faults), what the gate costs per round trip, and
 * the agent's footprint.
 */
public final class AgentBench {

  static final String APP = "agent-bench";
  static final String GROUP = "agent-bench";
  static final String ROLE = dev.baton.api.v1alpha1.LeaderGroupSpec.DEFAULT_ROLE_LABEL;
  static final int PODS = 3;
  static final Duration CONFIRM_WITHIN = Duration.ofSeconds(2);

  enum Kind {
    DELETED("leader pod deleted"),
    NOT_READY("leader turned not ready");

    final String description;

    Kind(String description) {
      this.description = description;
    }
  }

  private final BenchConfig config;
  private final Path jar;
  private final Path entrypoint;

  public AgentBench(BenchConfig config) {
    this.config = config;
    this.jar = Path.of(System.getProperty("bench.agentJar", "agent/target/baton-agent.jar"));
    this.entrypoint =
        Path.of(System.getProperty("bench.agentEntrypoint", "agent/src/main/image/baton-agent"));
  }

  /** The idle followers' footprint alone (as in {@link #run}), on the plain mock. */
  public void footprint(Report report) throws Exception {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar.toAbsolutePath() + " is missing: package the agent");
    }
    Path dir = Files.createDirectories(config.out().resolve("agent-footprint"));
    try (Sandbox cluster =
            new Sandbox(KubernetesUnderTest.fromEnvironment(), BatonOperator::launch, Map.of());
        AgentFleet fleet = new AgentFleet(cluster, jar, dir, CONFIRM_WITHIN)) {
      cluster.startOperator();
      Report.Section f =
          report.section(
              "agent-footprint",
              "The agent's footprint (shipped jar: " + jar + ")",
              "measure",
              "value");
      new AgentFootprint(fleet, cluster, jar, entrypoint, dir).idleFollowerRows(f);
    }
  }

  public void run(Report report) throws Exception {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar.toAbsolutePath() + " is missing: package the agent");
    }
    Path dir = Files.createDirectories(config.out().resolve("agent"));
    try (SteppedClock clock = new SteppedClock();
        Sandbox cluster =
            new Sandbox(
                KubernetesUnderTest.fromEnvironment(), BatonOperator::launch, clock.environment());
        AgentFleet fleet = new AgentFleet(cluster, jar, dir, CONFIRM_WITHIN)) {
      for (int i = 0; i < PODS; i++) {
        cluster.createPod(pod(i), APP);
      }
      cluster.startOperator();
      List<Double> startToReady = new ArrayList<>();
      for (int i = 0; i < PODS; i++) {
        startToReady.add(fleet.start(pod(i)));
      }
      cluster.create(Sandbox.group(GROUP, APP));
      int trials = config.processTrials();
      Report.Section cut =
          report.section(
              "agent-gate",
              "The agent's gate: from the API call to the client of the old leader's gate seeing"
                  + " its connection closed, and to the new leader's gate accepting (ms)",
              "step",
              "trials",
              "p50",
              "p90",
              "p99",
              "max");
      int directCut = 0;
      int directTrials = 0;
      int openedBeforeCut = 0;
      int writersCut = 0;
      int handOvers = 0;
      for (Kind kind : Kind.values()) {
        List<Double> cuts = new ArrayList<>();
        List<Double> opens = new ArrayList<>();
        for (int t = 0; t < trials; t++) {
          FailoverTrial.Outcome o = new FailoverTrial(cluster, fleet, kind).run();
          cuts.add(o.cutMillis());
          opens.add(o.openMillis());
          directTrials++;
          directCut += o.directCut() ? 1 : 0;
          handOvers++;
          writersCut += o.writerCut() ? 1 : 0;
          openedBeforeCut += o.openMillis() < o.cutMillis() ? 1 : 0;
          Progress.line("agent " + kind + " " + (t + 1) + "/" + trials + ": " + o);
        }
        row(cut, kind.description + ": connection through the old gate closed", cuts);
        row(cut, kind.description + ": new leader's gate accepting (old agent alive)", opens);
      }
      int killedTrials = Math.max(3, trials / 3);
      List<Double> killedOpens = new ArrayList<>();
      for (int t = 0; t < killedTrials; t++) {
        FailoverTrial.Outcome o = new FailoverTrial(cluster, fleet, Kind.DELETED).killFirst().run();
        killedOpens.add(o.openMillis());
        handOvers++;
        writersCut += o.writerCut() ? 1 : 0;
        Progress.line("agent killed " + (t + 1) + "/" + killedTrials + ": " + o);
      }
      row(cut, "old agent SIGKILLed, then leader pod deleted: new gate accepting", killedOpens);
      cut.note(
          "Three simulated pods, each with the shipped baton-agent.jar in its own JVM (java -jar,"
              + " no options, KUBECONFIG on the mock API server, BATON_REDIS_URL on the sandbox's"
              + " redis-server, confirmWithin 2 s) and an echo app behind its gate (ByteRecorder,"
              + " which records every stamped frame's arrival); the operator in the benchmark JVM."
              + " Each trial: a connection through the leader's gate and one straight to the"
              + " leader's app, both answering, and a pooled writer of stamped frames through the"
              + " gate (see the fault table's first row); then one API call (delete"
              + " the pod, or set its Ready condition False). Closed: a blocked read on the gate"
              + " connection returns end of stream or a reset. Accepting: a new connection through"
              + " another pod's gate echoes a byte (polled every few ms).");
      cut.note(
          "The same client connected straight to the old pod (the label route): cut in "
              + directCut
              + " of "
              + directTrials
              + " trials. The new gate accepted before the old gate's connection was seen closed in "
              + openedBeforeCut
              + " trials (the check is black-box: both times are taken in the benchmark JVM).");
      cut.note(
          "SIGKILLed: the old agent gets no chance to let go; its gate key runs out at most"
              + " confirmWithin after its last renewal, and only then does the new gate open"
              + " (target: under confirmWithin + 100 ms).");

      Report.Section faults =
          report.section(
              "agent-faults",
              "The agent's gate under faults: stamped frames that reached the demoted pod's"
                  + " application after the new gate opened, and when the new gate echoed",
              "fault",
              "trials",
              "late frames at the demoted app",
              "old connections cut",
              "after the fault: p50 ms",
              "after the fault: max ms",
              "after the API call: p50 ms",
              "after the API call: max ms",
              "anchor");
      long handOverLate = fleet.bytes().lateFrames();
      faults.row(
          "none: the hand-overs above, one writer on the old gate each",
          handOvers,
          handOverLate,
          writersCut + " of " + handOvers);
      if (handOverLate > 0) {
        violation(faults, "the hand-overs above", handOverLate, fleet);
      }

      Report.Section o =
          report.section(
              "agent-overhead",
              "The gate's cost: 1 KiB request, 1 KiB response, on loopback",
              "connections and path",
              "round trips/s",
              "p50 µs",
              "p99 µs",
              "CPU µs per round trip: clients + echo server",
              "CPU µs per round trip: agent");
      long agentPid = fleet.pidOfLeader(cluster);
      Optional<HaproxyAnchor> haproxy = HaproxyAnchor.start(dir, fleet.appPortOfLeader(cluster));
      try {
        for (int connections : new int[] {1, 64}) {
          Overhead.Result direct =
              new Overhead(fleet.appPortOfLeader(cluster), connections, agentPid).run();
          Overhead.Result through =
              new Overhead(fleet.gatePortOfLeader(cluster), connections, agentPid).run();
          Optional<Overhead.Result> anchor = Optional.empty();
          if (haproxy.isPresent()) {
            anchor =
                Optional.of(
                    new Overhead(haproxy.get().port(), connections, haproxy.get().pid()).run());
          }
          o.row(
              connections + ", straight to the target",
              direct.perSecond(),
              direct.p50Micros(),
              direct.p99Micros(),
              direct.benchCpuMicros(),
              direct.agentCpuMicros());
          o.row(
              connections + ", through the gate",
              through.perSecond(),
              through.p50Micros(),
              through.p99Micros(),
              through.benchCpuMicros(),
              through.agentCpuMicros());
          o.note(
              connections
                  + " connection(s): added p50 "
                  + Math.round(through.p50Micros() - direct.p50Micros())
                  + " µs; throughput through the gate "
                  + Math.round(100 * through.perSecond() / direct.perSecond())
                  + "% of straight; the agent spent "
                  + Math.round(through.agentCpuMicros())
                  + " µs of CPU per round trip where the clients and the echo server spent "
                  + Math.round(direct.benchCpuMicros())
                  + " µs straight, so with both cores busy the gate's ceiling is about "
                  + Math.round(
                      100
                          * direct.benchCpuMicros()
                          / (through.benchCpuMicros() + through.agentCpuMicros()))
                  + "% of straight.");
          if (anchor.isPresent()) {
            Overhead.Result h = anchor.get();
            o.row(
                connections + ", through HAProxy (the anchor)",
                h.perSecond(),
                h.p50Micros(),
                h.p99Micros(),
                h.benchCpuMicros(),
                h.agentCpuMicros());
            o.note(
                connections
                    + " connection(s), the anchor: "
                    + haproxy.get().version()
                    + " in TCP mode, one thread per core, in front of the same echo server: added"
                    + " p50 "
                    + Math.round(h.p50Micros() - direct.p50Micros())
                    + " µs; throughput "
                    + Math.round(100 * h.perSecond() / direct.perSecond())
                    + "% of straight (the gate: "
                    + Math.round(100 * through.perSecond() / direct.perSecond())
                    + "%); HAProxy spent "
                    + Math.round(h.agentCpuMicros())
                    + " µs of CPU per round trip (its column is the agent's).");
          }
        }
      } finally {
        if (haproxy.isPresent()) {
          haproxy.get().close();
        }
      }
      if (haproxy.isEmpty()) {
        o.note("No haproxy installed: the anchor rows are left out (apt-get install haproxy).");
      }
      o.note(Overhead.describe());

      Report.Section f =
          report.section(
              "agent-footprint", "The agent's footprint (shipped jar)", "measure", "value");
      Percentiles ready = Percentiles.of(startToReady);
      f.row("java -jar, no JVM options: start to /readyz, p50 of " + PODS + " (ms)", ready.p50());
      f.row("java -jar, no JVM options: start to /readyz, max (ms)", ready.max());
      Map<String, Long> rss = fleet.rssKib();
      rss.forEach(
          (pod, kib) ->
              f.row(
                  "java -jar, no JVM options: RSS of " + pod + " after the trials (MiB)",
                  kib / 1024.0));
      f.note(
          "RSS from /proc/<pid>/status (VmRSS) once the trials and the overhead runs are done. The"
              + " JVM's defaults size the heap from the machine's memory.");
      new AgentFootprint(fleet, cluster, jar, entrypoint, dir).idleFollowerRows(f);

      faults(cluster, fleet, faults, clock);
    }
  }

  /**
   * The fault rows, run last so that every figure above is taken as before: the agents restart
   * behind proxies for them.
   */
  private void faults(Sandbox cluster, AgentFleet fleet, Report.Section s, SteppedClock clock)
      throws Exception {
    int trials = config.faultTrials();
    FaultTrial.Fault previous = null;
    for (FaultTrial.Fault fault : FaultTrial.Fault.values()) {
      if (previous == null || previous.redisBehindProxies() != fault.redisBehindProxies()) {
        for (int i = 0; i < PODS; i++) {
          fleet.startBehindProxies(pod(i), fault.redisBehindProxies());
        }
      }
      previous = fault;
      List<Double> fromFault = new ArrayList<>();
      List<Double> fromApi = new ArrayList<>();
      long late = 0;
      int cut = 0;
      for (int t = 0; t < trials; t++) {
        FaultTrial.Outcome o = new FaultTrial(cluster, fleet, fault, clock).run();
        fromFault.add(o.fromFaultMillis());
        fromApi.add(o.fromApiMillis());
        late += o.lateFrames();
        cut += o.writersCut();
        Progress.line("agent " + fault + " " + (t + 1) + "/" + trials + ": " + o);
      }
      Percentiles f = Percentiles.of(fromFault);
      Percentiles a = Percentiles.of(fromApi);
      s.row(
          fault.description,
          trials,
          late,
          cut + " of " + trials * FaultTrial.WRITERS,
          f.p50(),
          f.max(),
          a.p50(),
          a.max(),
          fault.anchor);
      if (late > 0) {
        violation(s, fault.description, late, fleet);
      }
    }
    s.note(
        "Late frames: the fleet's apps are ByteRecorder echo apps (testkit); a pooled client"
            + " (StampedWriter) writes a 16-byte frame stamped with its writing instant every "
            + AgentFleet.WRITE_EVERY.toMillis()
            + " ms through the old leader's gate. A late frame reached the old pod's app though"
            + " written after another pod's app was first reached on a later connection (here the"
            + " poll that found the new gate echoing): two gates forwarding at once, or a demoted"
            + " gate relaying late. Counted over each trial's connections (ByteRecorder.lateFrames,"
            + " a delta). Must be 0; any is printed as a VIOLATION row.");
    s.note(
        "Each fault trial: "
            + FaultTrial.WRITERS
            + " writers on the old leader's gate, each seen reaching its app; the fault, injected"
            + " as the agent's GateFaultsIT injects it against the shipped jar; leadership moved by"
            + " one API call setting the old leader's Ready condition False (for the Redis cut-off"
            + " once its agent's /readyz said 503, as a kubelet would; here polled every 5 ms); the"
            + " other pods' gates polled every 2 ms until one echoes; the pool writes on for 500"
            + " ms (for SIGSTOP, before SIGCONT); then each writer's connection must have been"
            + " reset. After the fault: from the DEL, the restart call, the SIGSTOP, or the pause"
            + " of the agent's Redis proxy; after the API call: from the not-ready call. Then the"
            + " proxies resume and the old pod is made ready again.");
    s.note(
        "Run after every other part of the agent benchmark (the footprint's idle followers still"
            + " up, idle), with the three agents restarted (java -jar, no options, confirmWithin 2"
            + " s) so that each reaches the API server through a PausableProxy of its own in the"
            + " benchmark JVM, and for the Redis cut-off Redis too; the hand-overs above ran"
            + " without proxies. "
            + config.faultTrials()
            + " trials per fault (bench.faultTrials).");
  }

  /** A row no reader can miss, and the recorder's own account of the first late frames. */
  private static void violation(Report.Section s, String what, long late, AgentFleet fleet) {
    s.row("VIOLATION: " + what + ": " + late + " frame(s) reached a demoted app late", null, late);
    fleet.bytes().violations().stream().limit(5).forEach(v -> s.note("VIOLATION: " + v));
  }

  static String pod(int i) {
    return "agent-" + i;
  }

  private static void row(Report.Section s, String step, List<Double> samples) {
    Percentiles p = Percentiles.of(samples);
    s.row(step, p.count(), p.p50(), p.p90(), p.p99(), p.max());
  }

  /** Reads from {@code s} until it ends; completes with the instant it ended (nanoTime). */
  static CompletableFuture<Long> endOf(Socket s) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            s.setSoTimeout(10_000);
            while (s.getInputStream().read() >= 0) {
              // the echo of nothing: keep reading until the end
            }
          } catch (java.net.SocketTimeoutException e) {
            return -1L;
          } catch (java.io.IOException e) {
            // reset: an end too
          }
          return System.nanoTime();
        });
  }

  static double millisSince(long start, long end) {
    return TimeUnit.NANOSECONDS.toMicros(end - start) / 1000.0;
  }

  static Map<String, String> env(Map<String, String> base) {
    return new LinkedHashMap<>(base);
  }

  static void await(java.util.function.BooleanSupplier c, Duration timeout, String what) {
    Waits.require(c, timeout, what);
  }
}
