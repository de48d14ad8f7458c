package dev.baton.bench.agent;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.bench.harness.BenchConfig;
import dev.baton.bench.harness.Percentiles;
import dev.baton.bench.harness.Progress;
import dev.baton.bench.harness.Report;
import dev.baton.bench.harness.Waits;
import dev.baton.client.BatonNames;
import dev.baton.operator.BatonOperator;
import dev.baton.operator.metrics.FailoverTrace;
import dev.baton.testkit.ByteRecorder;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.FreePorts;
import dev.baton.testkit.KubernetesUnderTest;
import dev.baton.testkit.LatencyProfile;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Relay mode, measured with the shipped jar: four pods on addresses of their own (127.0.0.2x), one
 * of them never a candidate (the follower clients reach, as a Service that has not caught up sends
 * them), the others failing over in turn by deletion, readiness and switchover. Per kind: from the
 * moment the leader change was asked to the first frame that a connection opened through the
 * follower delivered to the new leader's application, and every connection attempt through the
 * follower that was refused or reset before its echo. Then the relay's cost in steady state: round
 * trips through the follower's relay beside the leader's own gate, and the follower agent's memory
 * per idle relayed connection.
 */
public final class RelayBench {

  private static final String FOLLOWER = "relay-f";
  private static final List<String> CANDIDATES = List.of("relay-a", "relay-b", "relay-c");
  private static final long CLIENT_EVERY_MILLIS = 5;
  private static final long PROFILE_SEED = 59;

  /** Keeps a deleted pod terminating while its agent runs on, as a kubelet does on a node. */
  private static final String FINALIZER = "bench.baton.dev/graceful";

  /** How long a deleted pod's agent runs on before its SIGTERM (a native sidecar stops last). */
  private static final long SIDECAR_STOPS_AFTER_MILLIS = 1000;

  private final BenchConfig config;
  private final Path jar;
  private final Map<String, String> ips = new LinkedHashMap<>();
  private final int gatePort = FreePorts.any();
  private final int leaderOnlyPort = FreePorts.any();

  /** The operator's steps for the group ({@link FailoverTrace}), since the trial's change. */
  private final Queue<FailoverTrace.Stamp> stamps = new ConcurrentLinkedQueue<>();

  /** -Dbench.relayKinds=deleted,not_ready: a subset of the hand-overs (default all). */
  private final Set<Kind> kinds;

  /** -Dbench.relayServers=plain,profile: a subset of the servers (default both). */
  private final Set<String> servers;

  /**
   * -Dbench.agentLog=debug: the agents' own log level (their logs in the output directory); or
   * {@code <logger>=<level>} for one logger, e.g. {@code dev.baton.agent.gate.Forwarding=debug}.
   */
  private final String agentLog = System.getProperty("bench.agentLog", "");

  /**
   * -Dbench.relayAgents=jar: each agent as {@code java -jar} with the JVM's defaults; by default as
   * the image runs it (its entrypoint, options and trained class archive), as on a node.
   */
  private final boolean asTheImage =
      !System.getProperty("bench.relayAgents", "image").equals("jar");

  private final Path entrypoint =
      Path.of(System.getProperty("bench.agentEntrypoint", "agent/src/main/image/baton-agent"));

  public RelayBench(BenchConfig config) {
    this.config = config;
    this.jar = Path.of(System.getProperty("bench.agentJar", "agent/target/baton-agent.jar"));
    ips.put(FOLLOWER, "127.0.0.20");
    for (int i = 0; i < CANDIDATES.size(); i++) {
      ips.put(CANDIDATES.get(i), "127.0.0.2" + (i + 1));
    }
    String k = System.getProperty("bench.relayKinds", "");
    kinds =
        k.isBlank()
            ? Set.of(Kind.values())
            : java.util.Arrays.stream(k.split(","))
                .map(x -> Kind.valueOf(x.trim().toUpperCase(java.util.Locale.ROOT)))
                .collect(java.util.stream.Collectors.toUnmodifiableSet());
    String v = System.getProperty("bench.relayServers", "");
    servers = v.isBlank() ? Set.of("plain", "profile") : Set.of(v.split(","));
  }

  private enum Kind {
    DELETED("leader pod deleted (terminating, its agent stopped 1 s later)"),
    NOT_READY("leader turned not ready"),
    SWITCHOVER("switchover");

    final String description;

    Kind(String description) {
      this.description = description;
    }
  }

  public void run(Report report) throws Exception {
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(jar.toAbsolutePath() + " is missing: package the agent");
    }
    Report.Section s =
        report.section(
            "relay",
            "Relay mode: connections through a follower's agent across hand-overs (ms from the"
                + " change asked to the first frame at the new leader's app through the follower)",
            "API server",
            "hand-over",
            "trials",
            "to the new leader: p50",
            "p99",
            "max",
            "goal (p50 / p99)",
            "of which: change to the event at the operator, p50",
            "change to the new leader's label written, p50",
            "label written to the first frame, p50",
            "attempts",
            "refused (goal 0)",
            "given up by the relay (goal 0)",
            "cut by the old leader's gate as it shut: before their frame reached its app",
            "after",
            "answered after more than 1 s (goal 0)",
            "slowest answer ms",
            "late frames at a demoted app");
    Report.Section cuts =
        report.section(
            "relay-held-cut",
            "Relay mode: a connection held through the old leader's own gate, cut after its pod"
                + " was deleted (ms from the DELETE)",
            "API server",
            "trials",
            "p50",
            "p99",
            "max",
            "goal (p50)");
    Report.Section patches =
        report.section(
            "relay-pod-patch",
            "Relay mode: the operator's label writes, as it timed them and as the mock served"
                + " them, with the latency profile (ms, p50)",
            "hand-over",
            "write",
            "writes",
            "sent to answered, at the operator",
            "sent to arrived at the mock",
            "drawn by the profile",
            "arrival to answer, at the mock",
            "the mock's answer less its draw",
            "answer to the operator's thread");
    // The plain mock first, with the steady-state overhead; then, in the same run, the mock that
    // answers as kube-apiserver v1.32 did on a real node.
    FailoverTrace.to(
        st -> {
          if (st.group().equals(Sandbox.NS + "/" + AgentBench.APP)) {
            stamps.add(st);
          }
        });
    try {
      if (servers.contains("plain")) {
        runOn(null, s, cuts, null, report);
      }
      String kubeconfig = System.getenv(KubernetesUnderTest.KUBECONFIG);
      if (servers.contains("profile") && (kubeconfig == null || kubeconfig.isBlank())) {
        runOn(LatencyProfile.kubeApiserver132(PROFILE_SEED), s, cuts, patches, null);
      }
    } finally {
      FailoverTrace.to(null);
    }
    s.note(
        "The shipped baton-agent.jar per pod ("
            + (asTheImage
                ? "as the image runs it: its entrypoint, JVM options and trained class archive"
                : "java -jar with the JVM's defaults")
            + "), bound on its pod's own loopback"
            + " address with the same gate port and leader-only port, as pods share port"
            + " numbers on their own IPs; confirmWithin "
            + AgentBench.CONFIRM_WITHIN.toMillis()
            + " ms; the real operator on the mock API server, one redis-server; the mock plain,"
            + " then (fresh agents, operator and mock) with LatencyProfile.kubeApiserver132(seed "
            + PROFILE_SEED
            + "): each request answered about as long after it arrived as kube-apiserver"
            + " v1.32's histogram says for its kind (a pod PATCH 10-25 ms; held that long less"
            + " what the mock lately took to handle one), watch events delivered 2-10 ms after"
            + " the write. A"
            + " client opens a connection to the follower every "
            + CLIENT_EVERY_MILLIS
            + " ms from the change on, writes a stamped frame and reads its echo; the time is"
            + " when the first such frame reached the new leader's application (its first byte's"
            + " arrival as the application recorded it). Refused: the"
            + " follower's port did not take the connection; given up: its relay held it past"
            + " its hold (BATON_AGENT_RELAY_HOLD, 1 s; its metric); answered after more than"
            + " 1 s: from the connect to the echo. A connection the old leader's gate took in the"
            + " moment before it shut (the operator had demoted it, its agent had not yet seen"
            + " it) is cut with the others once its frame was passed on, as a direct connection"
            + " would be: the old application may have its bytes; one whose bytes that gate had"
            + " not passed on yet is handed back (its word 'B') and carried, with those bytes,"
            + " to the next leader's gate (the relay's 'retried'). A deleted pod"
            + " carries a finalizer of the benchmark's, so it stays terminating as on a node;"
            + " right after the DELETE its 'kubelet' (the benchmark) turns it not ready, and"
            + " SIGTERMs its agent "
            + SIDECAR_STOPS_AFTER_MILLIS
            + " ms later, as a native sidecar is stopped after the application; then the"
            + " finalizer goes, and the pod is created and its agent started again. Of which:"
            + " from the operator's own trace (FailoverTrace, in this JVM), when it was handed"
            + " the old leader's first pod event (none for a switchover) and when the new"
            + " leader's label write was answered; the rest is the new leader's agent seeing its"
            + " label and taking the gate key, the follower learning of it, and the relay.");
    cuts.note(
        "Before each deletion, a connection through the old leader's own gate (as kube-proxy"
            + " would have routed it), echoed once, then blocked in a read: the time is when"
            + " that read saw the reset or the end. The agent acts on its own pod's"
            + " deletionTimestamp (its watch) before any relabel and before its SIGTERM.");
    patches.note(
        "Each trial's demotion and promotion, as the operator timed them (FailoverTrace, from the"
            + " PATCH's sending to its answer in the operator's thread), matched with the mock's"
            + " record of the same request (the operator runs in the benchmark's process, so both"
            + " read one clock): when it arrived, the time the profile drew for it, and the time"
            + " from its arrival at the mock's handler to its answer; the rest is the operator's"
            + " HTTP client, the loopback and the mock's reading of the request, on the two cores"
            + " the whole bed shares. The last row of a kind: every label write the operator"
            + " timed, and every pod write the mock served (anyone's: the benchmark's kubelet and"
            + " finalizers too).");
    if (!patches.hasRows()) {
      patches.note(
          "No rows in this run: the mock keeps its record of what it served only under a latency"
              + " profile, and the profile's pass did not run (-Dbench.relayServers=plain, or a"
              + " real cluster).");
    }
  }

  /**
   * The hand-overs on one server: the plain mock ({@code profile} null) or the mock with a latency
   * profile; the steady-state overhead too when {@code overheadTo} is given.
   */
  private void runOn(
      LatencyProfile profile,
      Report.Section s,
      Report.Section cuts,
      Report.Section patches,
      Report overheadTo)
      throws Exception {
    // The first run is on what the environment names: the plain mock, or a real cluster.
    String server = profile == null ? "plain" : "v1.32 latency profile";
    Path dir =
        Files.createDirectories(config.out().resolve(profile == null ? "relay" : "relay-profile"));
    int trials = Math.max(5, config.processTrials());
    EmbeddedKubernetes profiled =
        profile == null ? null : EmbeddedKubernetes.start().latency(profile);
    KubernetesUnderTest kube = profiled == null ? KubernetesUnderTest.fromEnvironment() : profiled;
    try (Sandbox cluster = new Sandbox(kube, BatonOperator::launch, Map.of());
        AgentFleet fleet = new AgentFleet(cluster, jar, dir, AgentBench.CONFIRM_WITHIN)) {
      cluster.startOperator();
      for (String pod : ips.keySet()) {
        createPod(cluster, pod);
      }
      LeaderGroup group = Sandbox.group(AgentBench.APP, AgentBench.APP);
      cluster.create(group);
      for (String pod : ips.keySet()) {
        startAgent(fleet, pod);
      }
      fleet.awaitOpenLeader();
      for (Kind kind : Kind.values()) {
        if (!kinds.contains(kind)) {
          continue;
        }
        List<Double> took = new ArrayList<>();
        Steps steps = new Steps();
        Counts counts = new Counts();
        List<Double> heldCut = new ArrayList<>();
        long givenUp = relayGaveUp(fleet);
        int lateBefore = fleet.bytes().violations().size();
        int servedBefore = profiled == null ? 0 : profiled.served().size();
        for (int t = 0; t < trials; t++) {
          took.add(trial(cluster, fleet, kind, counts, heldCut, steps));
        }
        Percentiles p = Percentiles.of(took);
        Progress.line("relay " + server + " " + kind + ": " + p + ", " + counts + ", " + steps);
        Progress.line(
            "relay "
                + server
                + " "
                + kind
                + ", the follower's counters so far: "
                + relayCounts(fleet));
        s.row(
            server,
            kind.description,
            p.count(),
            p.p50(),
            p.p99(),
            p.max(),
            "< 100 / 250",
            steps.p50(steps.event),
            steps.p50(steps.labeled),
            steps.p50(steps.afterLabel),
            counts.attempts().get(),
            counts.refused().get(),
            relayGaveUp(fleet) - givenUp,
            counts.failed().get(),
            counts.cut().get(),
            counts.overASecond().get(),
            counts.slowestMillis().get(),
            fleet.bytes().violations().size() - lateBefore);
        if (profiled != null && patches != null) {
          List<EmbeddedKubernetes.Served> served = profiled.served();
          patchRows(
              patches,
              kind,
              steps,
              served.subList(Math.min(servedBefore, served.size()), served.size()).stream()
                  .filter(EmbeddedKubernetes.Served::podWrite)
                  .toList());
        }
        if (!heldCut.isEmpty()) {
          Percentiles c = Percentiles.of(heldCut);
          Progress.line("relay " + server + " held connection cut: " + c);
          cuts.row(server, c.count(), c.p50(), c.p99(), c.max(), "< 50");
        }
      }
      if (overheadTo != null) {
        overhead(overheadTo, cluster, fleet);
      }
    }
  }

  /**
   * Where the operator's two label writes of a hand-over spend their time, laid beside the mock's
   * record of the same requests (the same process, the same clock): from the sending to the
   * request's arrival at the mock, the profile's draw, from the arrival to the mock's answer, and
   * from that answer to the operator's thread holding it. Then every pod write: the operator's
   * label writes as it timed them, and every pod write the mock served against its draw.
   */
  private static void patchRows(
      Report.Section patches, Kind kind, Steps steps, List<EmbeddedKubernetes.Served> podWrites) {
    patchRow(patches, kind, "the demotion", steps.demotions, podWrites);
    patchRow(patches, kind, "the promotion", steps.promotions, podWrites);
    if (steps.labelWrites.isEmpty() || podWrites.isEmpty()) {
      return;
    }
    patches.row(
        kind.description,
        "every label write (operator) / pod write (mock)",
        steps.labelWrites.size() + " / " + podWrites.size(),
        Percentiles.of(steps.labelWrites).p50(),
        "–",
        Percentiles.of(podWrites.stream().map(w -> w.drawnNanos() / 1e6).toList()).p50(),
        Percentiles.of(podWrites.stream().map(w -> w.servedNanos() / 1e6).toList()).p50(),
        Percentiles.of(
                podWrites.stream().map(w -> (w.servedNanos() - w.drawnNanos()) / 1e6).toList())
            .p50(),
        "–");
  }

  private static void patchRow(
      Report.Section patches,
      Kind kind,
      String which,
      List<Steps.Write> writes,
      List<EmbeddedKubernetes.Served> podWrites) {
    List<Double> total = new ArrayList<>();
    List<Double> there = new ArrayList<>();
    List<Double> drawn = new ArrayList<>();
    List<Double> served = new ArrayList<>();
    List<Double> over = new ArrayList<>();
    List<Double> back = new ArrayList<>();
    for (Steps.Write w : writes) {
      for (EmbeddedKubernetes.Served s : podWrites) {
        if (s.path().endsWith("/pods/" + w.pod())
            && s.arrivedNanos() - w.sentNanos() >= 0
            && w.answeredNanos() - s.arrivedNanos() >= 0) {
          total.add((w.answeredNanos() - w.sentNanos()) / 1e6);
          there.add((s.arrivedNanos() - w.sentNanos()) / 1e6);
          drawn.add(s.drawnNanos() / 1e6);
          served.add(s.servedNanos() / 1e6);
          over.add((s.servedNanos() - s.drawnNanos()) / 1e6);
          back.add((w.answeredNanos() - s.arrivedNanos() - s.servedNanos()) / 1e6);
          break;
        }
      }
    }
    if (total.isEmpty()) {
      return;
    }
    Progress.line(
        "relay "
            + kind
            + " "
            + which
            + ": at the operator "
            + Percentiles.of(total)
            + "; to the mock "
            + Percentiles.of(there)
            + "; drawn "
            + Percentiles.of(drawn)
            + "; served "
            + Percentiles.of(served)
            + "; served less drawn "
            + Percentiles.of(over)
            + "; back "
            + Percentiles.of(back));
    patches.row(
        kind.description,
        which,
        total.size(),
        Percentiles.of(total).p50(),
        Percentiles.of(there).p50(),
        Percentiles.of(drawn).p50(),
        Percentiles.of(served).p50(),
        Percentiles.of(over).p50(),
        Percentiles.of(back).p50());
  }

  /** The connections the follower's relay gave up (no leader's gate took them in time). */
  private static long relayGaveUp(AgentFleet fleet) throws IOException, InterruptedException {
    return count(followerMetrics(fleet), "relay_connections_total", "outcome", "refused");
  }

  /** What the follower's relay did, as its counters say: outcomes and tries by result. */
  private static String relayCounts(AgentFleet fleet) throws IOException, InterruptedException {
    String metrics = followerMetrics(fleet);
    StringBuilder b = new StringBuilder();
    for (String outcome : List.of("relayed", "retried", "lost", "refused")) {
      b.append(outcome)
          .append(' ')
          .append(count(metrics, "relay_connections_total", "outcome", outcome))
          .append(", ");
    }
    b.append("tries:");
    for (String result : List.of("taken", "refused", "silent", "unreachable", "abandoned")) {
      b.append(' ')
          .append(result)
          .append(' ')
          .append(count(metrics, "relay_attempts_total", "result", result));
    }
    return b.toString();
  }

  /** The follower agent's {@code /metrics}, scraped once. */
  private static String followerMetrics(AgentFleet fleet) throws IOException, InterruptedException {
    var http = java.net.http.HttpClient.newHttpClient();
    return http.send(
            java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(
                        "http://127.0.0.1:" + fleet.httpPort(FOLLOWER) + "/metrics"))
                .build(),
            java.net.http.HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static long count(String metrics, String series, String label, String value) {
    var m =
        java.util.regex.Pattern.compile(
                "(?m)^baton_agent_"
                    + series
                    + "\\{[^}]*"
                    + label
                    + "=\""
                    + value
                    + "\"[^}]*\\} (\\S+)$")
            .matcher(metrics);
    return m.find() ? (long) Double.parseDouble(m.group(1)) : 0;
  }

  private static Pod pod(String name, String ip) {
    Pod p = Sandbox.readyPod(Sandbox.NS, name, Map.of("app", AgentBench.APP));
    p.getStatus().setPodIP(ip);
    p.getMetadata().setFinalizers(List.of(FINALIZER));
    if (name.equals(FOLLOWER)) {
      p.getMetadata().setAnnotations(Map.of(BatonNames.CANDIDATE_ANNOTATION, "false"));
    }
    return p;
  }

  private void createPod(Sandbox cluster, String name) {
    cluster.createPod(pod(name, ips.get(name)));
  }

  private void startAgent(AgentFleet fleet, String pod) {
    fleet.onAddress(pod, ips.get(pod), gatePort);
    Map<String, String> env = new LinkedHashMap<>();
    env.put("BATON_AGENT_RELAY", gatePort + ":" + leaderOnlyPort);
    if (!agentLog.isBlank()) {
      env.put(
          "JAVA_TOOL_OPTIONS",
          "-Dorg.slf4j.simpleLogger.log."
              + (agentLog.contains("=") ? agentLog : "dev.baton=" + agentLog));
    }
    if (asTheImage) {
      try {
        fleet.startAsTheImage(pod, entrypoint, env);
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
    } else {
      fleet.start(pod, fleet.javaJar(), env);
    }
  }

  /**
   * One hand-over; the milliseconds to the first frame at the new leader through the follower. On a
   * deletion, when a connection held through the old leader's own gate was cut goes to {@code
   * heldCut}.
   */
  private double trial(
      Sandbox cluster,
      AgentFleet fleet,
      Kind kind,
      Counts counts,
      List<Double> heldCut,
      Steps steps)
      throws Exception {
    String leader = fleet.awaitOpenLeader();
    String target = null;
    if (kind == Kind.SWITCHOVER) {
      target = CANDIDATES.stream().filter(p -> !p.equals(leader)).findFirst().orElseThrow();
    }
    Map<String, Long> before = new LinkedHashMap<>();
    for (String pod : CANDIDATES) {
      before.put(pod, fleet.bytes().frames(pod));
    }
    ExecutorService clients = Executors.newCachedThreadPool();
    HeldConnection held =
        kind == Kind.DELETED ? HeldConnection.open(ips.get(leader), gatePort) : null;
    stamps.clear();
    long t0 = System.nanoTime();
    if (!agentLog.isBlank()) {
      Progress.line("relay trial " + kind + " from " + leader + " at " + java.time.Instant.now());
    }
    switch (kind) {
      case DELETED -> {
        cluster.deletePod(leader);
        // The kubelet stops the containers and reports the pod not ready, on its own time: the
        // clients below start meanwhile.
        clients.execute(() -> cluster.setReady(leader, false));
      }
      case NOT_READY -> cluster.setReady(leader, false);
      case SWITCHOVER -> cluster.annotate(AgentBench.APP, BatonNames.SWITCHOVER_ANNOTATION, target);
    }
    double took = -1;
    long giveUp = t0 + TimeUnit.SECONDS.toNanos(20);
    while (took < 0 && System.nanoTime() - giveUp < 0) {
      clients.execute(() -> connect(fleet, counts));
      Thread.sleep(CLIENT_EVERY_MILLIS);
      for (String pod : CANDIDATES) {
        if (!pod.equals(leader) && fleet.bytes().frames(pod) > before.get(pod)) {
          // When its first byte arrived, as the application recorded it: not when this poll saw it.
          long arrived = fleet.bytes().firstArrival(pod, t0);
          took = AgentBench.millisSince(t0, arrived != 0 ? arrived : System.nanoTime());
        }
      }
    }
    clients.shutdown();
    clients.awaitTermination(20, TimeUnit.SECONDS);
    if (took < 0) {
      throw new IllegalStateException(kind + ": no frame reached a new leader within 20 s");
    }
    steps.add(List.copyOf(stamps), kind == Kind.SWITCHOVER ? null : leader, leader, t0, took);
    if (!agentLog.isBlank()) {
      // To lay the trial beside the agents' logs, which stamp wall-clock milliseconds.
      Progress.line("relay trial " + kind + ": " + steps.last() + ", first frame " + took + " ms");
    }
    // Back to three ready candidates, and the group steady, for the next trial.
    switch (kind) {
      case DELETED -> {
        long cutAt = held.cutAt(TimeUnit.SECONDS.toNanos(10));
        if (cutAt == 0) {
          throw new IllegalStateException("the old leader's gate kept a held connection 10 s");
        }
        heldCut.add(AgentBench.millisSince(t0, cutAt));
        long sigterm = t0 + TimeUnit.MILLISECONDS.toNanos(SIDECAR_STOPS_AFTER_MILLIS);
        Thread.sleep(Math.max(0, TimeUnit.NANOSECONDS.toMillis(sigterm - System.nanoTime())));
        fleet.terminate(leader);
        Thread.sleep(2500); // the stopped agent relays for its drain, then exits
        releaseFinalizer(cluster, leader);
        Waits.require(() -> cluster.pod(leader) == null, Duration.ofSeconds(10), leader + " gone");
        createPod(cluster, leader);
        startAgent(fleet, leader);
      }
      case NOT_READY -> cluster.setReady(leader, true);
      case SWITCHOVER -> {}
    }
    fleet.awaitOpenLeader();
    Thread.sleep(500);
    return took;
  }

  /**
   * Counts per kind of hand-over: attempts, failures, cuts after delivery, answers after more than
   * a second, and the slowest answer.
   */
  private record Counts(
      AtomicInteger attempts,
      AtomicInteger refused,
      AtomicInteger failed,
      AtomicInteger cut,
      AtomicInteger overASecond,
      AtomicLong slowestMillis) {
    Counts() {
      this(
          new AtomicInteger(),
          new AtomicInteger(),
          new AtomicInteger(),
          new AtomicInteger(),
          new AtomicInteger(),
          new AtomicLong());
    }

    void answered(long startedNanos) {
      long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startedNanos);
      slowestMillis.accumulateAndGet(millis, Math::max);
      if (millis > 1000) {
        overASecond.incrementAndGet();
      }
    }
  }

  /**
   * Where a hand-over's time went, per trial (ms from the change): the operator handed the old
   * leader's first pod event, the new leader's label write answered, and from that to the first
   * frame at the new leader.
   */
  private static final class Steps {
    final List<Double> event = new ArrayList<>();
    final List<Double> labeled = new ArrayList<>();
    final List<Double> afterLabel = new ArrayList<>();

    /**
     * The operator's writes between: the old leader's demotion sent and answered, the new's sent
     * (from {@link #demotions} and {@link #promotions}).
     */
    final List<Double> demoteSent = new ArrayList<>();

    final List<Double> demoted = new ArrayList<>();
    final List<Double> promoteSent = new ArrayList<>();

    /** Every label write of the operator's: ms from its sending to its answer. */
    final List<Double> labelWrites = new ArrayList<>();

    /** Each trial's demotion and promotion, by the operator's clock. */
    final List<Write> demotions = new ArrayList<>();

    final List<Write> promotions = new ArrayList<>();

    /** A label write of the operator's: the pod, and when it was sent and answered (nanoTime). */
    record Write(String pod, long sentNanos, long answeredNanos) {}

    /**
     * @param changedPod the pod whose change started the hand-over; null for a switchover, which
     *     starts from the group
     */
    void add(
        List<FailoverTrace.Stamp> trace,
        String changedPod,
        String oldLeader,
        long t0,
        double took) {
      lastSizes[0] = event.size();
      lastSizes[1] = demoted.size();
      lastSizes[2] = labeled.size();
      for (FailoverTrace.Stamp st : trace) {
        if (st.step() == FailoverTrace.Step.POD_EVENT && st.detail().equals(changedPod)) {
          event.add(AgentBench.millisSince(t0, st.nanos()));
          break;
        }
      }
      Write demotion = null;
      Write promotion = null;
      for (int i = 0; i < trace.size(); i++) {
        FailoverTrace.Stamp sent = trace.get(i);
        if (sent.step() != FailoverTrace.Step.LABEL_SENT) {
          continue;
        }
        for (FailoverTrace.Stamp st : trace.subList(i + 1, trace.size())) {
          if (st.step() == FailoverTrace.Step.LABEL_ANSWERED && st.detail().equals(sent.detail())) {
            labelWrites.add((st.nanos() - sent.nanos()) / 1e6);
            String pod = sent.detail().substring(0, sent.detail().indexOf(' '));
            Write w = new Write(pod, sent.nanos(), st.nanos());
            if (demotion == null && sent.detail().equals(oldLeader + " follower")) {
              demotion = w;
            } else if (promotion == null
                && sent.detail().endsWith(" leader")
                && !pod.equals(oldLeader)) {
              promotion = w;
            }
            break;
          }
        }
      }
      if (demotion != null) {
        demotions.add(demotion);
        demoteSent.add(AgentBench.millisSince(t0, demotion.sentNanos()));
        demoted.add(AgentBench.millisSince(t0, demotion.answeredNanos()));
      }
      if (promotion != null) {
        promotions.add(promotion);
        promoteSent.add(AgentBench.millisSince(t0, promotion.sentNanos()));
        double at = AgentBench.millisSince(t0, promotion.answeredNanos());
        labeled.add(at);
        afterLabel.add(took - at);
      }
    }

    /** The last trial's steps, ms from its change ("–" where the trace had none). */
    String last() {
      return "event "
          + lastOf(event, lastSizes[0])
          + ", demotion answered "
          + lastOf(demoted, lastSizes[1])
          + ", labeled "
          + lastOf(labeled, lastSizes[2]);
    }

    /** The sizes of event, demoted and labeled before the last trial was added. */
    private final int[] lastSizes = new int[3];

    private static Object lastOf(List<Double> of, int sizeBefore) {
      return of.size() > sizeBefore ? of.get(of.size() - 1) : "–";
    }

    Object p50(List<Double> of) {
      return of.isEmpty() ? "–" : Percentiles.of(of).p50();
    }

    @Override
    public String toString() {
      return "event p50 "
          + p50(event)
          + ", demotion sent p50 "
          + p50(demoteSent)
          + ", answered p50 "
          + p50(demoted)
          + ", promotion sent p50 "
          + p50(promoteSent)
          + ", labeled p50 "
          + p50(labeled)
          + ", then "
          + p50(afterLabel);
    }
  }

  private static void releaseFinalizer(Sandbox cluster, String name) {
    cluster
        .client
        .pods()
        .inNamespace(Sandbox.NS)
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
  }

  /** A connection echoed once, then read on a thread of its own until it ends. */
  private static final class HeldConnection {
    private final Socket socket;
    private final java.util.concurrent.CompletableFuture<Long> ended =
        new java.util.concurrent.CompletableFuture<>();

    private HeldConnection(Socket socket) {
      this.socket = socket;
    }

    static HeldConnection open(String ip, int port) throws IOException {
      Socket s = new Socket(InetAddress.getByName(ip), port);
      s.setSoTimeout(30_000);
      s.getOutputStream().write(42);
      if (s.getInputStream().read() != 42) {
        s.close();
        throw new IOException("no echo through " + ip + ":" + port);
      }
      HeldConnection h = new HeldConnection(s);
      Thread t =
          new Thread(
              () -> {
                try {
                  s.getInputStream().read();
                } catch (IOException e) {
                  // a reset: cut as well
                }
                h.ended.complete(System.nanoTime());
              },
              "bench-held-connection");
      t.setDaemon(true);
      t.start();
      return h;
    }

    /** When the read ended ({@link System#nanoTime()}), or 0 if it did not within {@code nanos}. */
    long cutAt(long nanos) {
      try {
        return ended.get(nanos, TimeUnit.NANOSECONDS);
      } catch (Exception e) {
        return 0;
      } finally {
        try {
          socket.close();
        } catch (IOException e) {
          // closing anyway
        }
      }
    }
  }

  /**
   * One connection through the follower. Refused, or reset before its frame reached any
   * application, is a failure; reset after its frame reached the leader of that moment is a cut by
   * the hand-over, as a direct connection's would be.
   */
  private void connect(AgentFleet fleet, Counts counts) {
    counts.attempts().incrementAndGet();
    byte[] frame = ByteRecorder.frame();
    long started = System.nanoTime();
    String how = "ended before its echo";
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress(ips.get(FOLLOWER), gatePort), 2000);
      s.setSoTimeout(10_000);
      s.getOutputStream().write(frame);
      InputStream in = s.getInputStream();
      if (in.readNBytes(ByteRecorder.FRAME_BYTES).length == ByteRecorder.FRAME_BYTES) {
        counts.answered(started);
        return;
      }
    } catch (ConnectException e) {
      counts.refused().incrementAndGet();
      return;
    } catch (IOException e) {
      how = e.toString();
    }
    if (fleet.bytes().reachedBy(ByteRecorder.stampOf(frame)) != null) {
      counts.cut().incrementAndGet();
    } else {
      counts.failed().incrementAndGet();
      Progress.line(
          "relay: a connection opened at "
              + java.time.Instant.now().minusNanos(System.nanoTime() - started)
              + " "
              + how
              + ", its frame at no application");
    }
  }

  /** Round trips through the follower's relay beside the leader's gate, and memory per relay. */
  private void overhead(Report report, Sandbox cluster, AgentFleet fleet) throws Exception {
    String leader = fleet.awaitOpenLeader();
    Report.Section s =
        report.section(
            "relay-cost",
            "The relay's cost in steady state: 1 KiB round trips (µs) and memory",
            "path",
            "connections",
            "round trips/s",
            "p50 µs",
            "p99 µs",
            "agent CPU per round trip µs");
    for (int connections : new int[] {1, 16}) {
      Overhead.Result gate =
          new Overhead(
                  InetAddress.getByName(ips.get(leader)), gatePort, connections, fleet.pid(leader))
              .run();
      Overhead.Result relay =
          new Overhead(
                  InetAddress.getByName(ips.get(FOLLOWER)),
                  gatePort,
                  connections,
                  fleet.pid(FOLLOWER))
              .run();
      s.row(
          "the leader's gate",
          connections,
          gate.perSecond(),
          gate.p50Micros(),
          gate.p99Micros(),
          gate.agentCpuMicros());
      s.row(
          "a follower's relay, then the leader's leader-only gate",
          connections,
          relay.perSecond(),
          relay.p50Micros(),
          relay.p99Micros(),
          relay.agentCpuMicros());
    }
    s.note(Overhead.describe() + " The relay row's CPU is the follower agent's alone.");

    int idle = 200;
    long rssBefore = fleet.rssKib().get(FOLLOWER);
    List<Socket> held = new ArrayList<>();
    try {
      for (int i = 0; i < idle; i++) {
        Socket c = new Socket(InetAddress.getByName(ips.get(FOLLOWER)), gatePort);
        c.setSoTimeout(10_000);
        c.getOutputStream().write(42);
        if (c.getInputStream().read() != 42) {
          throw new IOException("no echo through the relay");
        }
        held.add(c);
      }
      Thread.sleep(1000);
      long rssAfter = fleet.rssKib().get(FOLLOWER);
      Report.Section m =
          report.section(
              "relay-memory",
              "The follower agent's resident memory per idle relayed connection",
              "connections held",
              "RSS before KiB",
              "RSS after KiB",
              "KiB per connection");
      m.row(idle, rssBefore, rssAfter, (rssAfter - rssBefore) / (double) idle);
      m.note(
          "Once taken, a relayed connection holds no thread: both its sockets are carried by"
              + " the relay's event loops; measured after one echo each.");
    } finally {
      for (Socket c : held) {
        c.close();
      }
    }
  }
}
