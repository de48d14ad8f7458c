package dev.baton.bench.scale;

import static dev.baton.bench.scale.ScaleBench.PODS_PER_GROUP;
import static dev.baton.bench.scale.ScaleBench.TOP_THREADS;

import dev.baton.bench.harness.BenchConfig;
import dev.baton.bench.harness.Report;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** The scale benchmark's section of the report: its tables, its notes, and the targets. */
final class ScaleReport {

  private final BenchConfig config;

  ScaleReport(BenchConfig config) {
    this.config = config;
  }

  void write(Report report, Figures f) {
    boolean target = f.groups == 1000 && f.namespaces == 1;
    double steadySeconds = (f.steady1.wallNanos() - f.steady0.wallNanos()) / 1e9;
    double coldWall = (f.cold1.wallNanos() - f.cold0.wallNanos()) / 1e9;
    double operatorCpu =
        CpuSample.percentOfCore(
            f.steady0.operatorNanos(), f.steady1.operatorNanos(), f.steady0, f.steady1);
    double heapMiB = f.memory.heapUsed() / 1048576.0;
    double scriptsPerSecond = f.steadyRedis.scriptCalls() / steadySeconds;
    // Unbatched, every group renews with its own script call once per renew interval (3 s);
    // batched means at least ten groups per call on average. On a cluster a call covers one
    // slot, so there batched means one pipeline per master per tick, not fewer script calls.
    boolean batched = config.redisCluster() || scriptsPerSecond <= f.groups / 3.0 / 10;
    ScaleBench.Deletions d = f.deletions;

    Report.Section s =
        report.section(
            "scale",
            String.format(
                Locale.ROOT,
                "Scale: %,d LeaderGroups x %d pods on one operator, %s",
                f.groups,
                PODS_PER_GROUP,
                config.redisDescription()),
            "measure",
            "value",
            "target");
    s.row(
        "Cold start: operator process started -> every group converged (s)",
        f.coldStartSeconds,
        target ? "< 10 s" + verdict(f.coldStartSeconds < 10) : "");
    s.row("  process started -> /readyz answers (s)", f.readySeconds);
    s.row("  process started -> first leader label (s)", f.firstLeaderSeconds);
    s.row(
        "  process started -> 50% / 90% / 99% of groups converged (s)",
        Arrays.stream(f.convergedShareSeconds)
            .mapToObj(Report::format)
            .collect(Collectors.joining(" / ")));
    s.row(
        "  operator CPU during cold start (% of one core)",
        CpuSample.percentOfCore(
            f.cold0.operatorNanos(), f.cold1.operatorNanos(), f.cold0, f.cold1));
    s.row(
        "  benchmark JVM (mock API server) CPU during cold start (% of one core)",
        CpuSample.percentOfCore(f.cold0.benchNanos(), f.cold1.benchNanos(), f.cold0, f.cold1));
    s.row("  Kubernetes API requests during cold start", CountingKubernetes.total(f.coldRequests));
    s.row(
        "  Redis round trips / commands during cold start",
        Report.format(f.coldRedis.readEvents()) + " / " + Report.format(f.coldRedis.commands()));
    s.row(
        "Steady state (" + Math.round(steadySeconds) + " s): operator CPU (% of one core)",
        operatorCpu,
        target ? "< 10%" + verdict(operatorCpu < 10) : "");
    s.row("  heap after GC (MiB)", heapMiB, target ? "< 256 MiB" + verdict(heapMiB < 256) : "");
    s.row(
        "  Redis commands/s (all, incl. inside scripts)", f.steadyRedis.commands() / steadySeconds);
    s.row(
        "  Redis script calls/s (EVAL/EVALSHA)",
        scriptsPerSecond,
        "renewals batched" + verdict(batched));
    s.row("  Redis round trips/s (server read events)", f.steadyRedis.readEvents() / steadySeconds);
    s.row("  of which PING health checks/s", f.steadyRedis.pings() / steadySeconds);
    s.row(
        "  Kubernetes API requests/s", CountingKubernetes.total(f.steadyRequests) / steadySeconds);
    s.row(
        "  new terms seen on pods (re-elections, leases lost and re-acquired)",
        f.steadyTermChanges,
        "0" + verdict(f.steadyTermChanges == 0));
    s.row("  every group still converged at the end", f.stillConverged ? "yes" : "NO");
    s.row(
        d.count()
            + " leaders deleted at once -> all "
            + d.count()
            + " groups show a new"
            + " leader label (ms)",
        d.allMillis());
    s.row(
        "  per group: p50 / p90 / max (ms)",
        Report.format(d.perGroup().p50())
            + " / "
            + Report.format(d.perGroup().p90())
            + " / "
            + Report.format(d.perGroup().max())
            + (d.missing() > 0 ? " (" + d.missing() + " without a new leader after 60 s)" : ""));
    s.row("  Kubernetes API requests until then", CountingKubernetes.total(d.requests()));
    s.row(
        "/metrics series per group after that: max / mean over "
            + f.series.groups()
            + " groups ("
            + d.count()
            + " failed over once, no leader Service)",
        f.series.max() + " / " + Report.format(f.series.mean()),
        target ? "<= 15" + verdict(f.series.max() <= 15) : "");
    ScaleBench.Burst b = f.burst;
    s.row(
        b.groups()
            + " new groups of "
            + PODS_PER_GROUP
            + " ready pods created at once on the running operator -> all converged (s)",
        b.seconds(),
        target ? "< 2 s" + verdict(b.seconds() < 2) : "");
    s.row(
        "  Kubernetes API requests until then (the benchmark's own creates included)",
        CountingKubernetes.total(b.requests()));
    s.row(
        "Context, steady state: benchmark JVM (mock API server, informers) CPU (% of one core)",
        CpuSample.percentOfCore(
            f.steady0.benchNanos(), f.steady1.benchNanos(), f.steady0, f.steady1));
    s.row(
        "Context, steady state: redis-server CPU (% of one core)",
        !f.redisFound
            ? Double.NaN
            : CpuSample.percentOfCore(
                f.steady0.redisNanos(), f.steady1.redisNanos(), f.steady0, f.steady1));
    s.row(
        "Context, steady state: whole machine busy (% of all "
            + Runtime.getRuntime().availableProcessors()
            + " cores)",
        CpuSample.machineBusy(f.steady0, f.steady1));

    s.note(
        String.format(
            Locale.ROOT,
            "%,d groups in %d namespace(s), %d ready pods each, default"
                + " lease (ttl 10s, renew 3s); every group and pod exists before the operator starts. Before"
                + " it, unreported, the same cold start ran once with another operator process in a"
                + " namespace then deleted, so the mock API server in the benchmark JVM is compiled"
                + " (warm) while the measured operator process starts fresh.",
            f.groups,
            f.namespaces,
            PODS_PER_GROUP));
    s.note(
        "The operator runs as its own process: java "
            + config.operatorJvm()
            + config.classArchiveNote()
            + " -jar "
            + shown(config.operatorJar())
            + ", with KUBERNETES_MASTER set to the mock API server (in the"
            + " benchmark JVM) and BATON_REDIS_URL to "
            + config.redisDescription()
            + "; its log is written to "
            + f.log.getFileName()
            + ". Converged: exactly one pod of the group labeled leader, the"
            + " others follower, and the group's status naming that leader, as seen by informers in"
            + " the benchmark JVM.");
    s.note(
        "CPU: user+system time of the process over the wall time of the window (100% = one"
            + " core busy), GC and JIT included. Operator threads by CPU (% of one core), cold"
            + " start: "
            + ThreadCpu.top(Map.of(), f.coldThreads, coldWall, TOP_THREADS)
            + "; steady state: "
            + ThreadCpu.top(f.steadyThreads0, f.steadyThreads1, steadySeconds, TOP_THREADS)
            + ".");
    s.note(
        "Heap: used heap right after a full GC requested over JMX (attach API) at the end of"
            + " the steady window, which is also when the JMX agent starts; committed "
            + mib(f.memory.heapCommitted())
            + ", max "
            + mib(f.memory.heapMax())
            + ", non-heap "
            + mib(f.memory.nonHeapUsed())
            + ", "
            + f.memory.threads()
            + " threads.");
    s.note(
        "Redis: INFO stats and commandstats deltas; round trips are server read events, so a"
            + " pipeline or a batch that arrives together counts once. Kubernetes API requests are"
            + " counted at the mock server (the benchmark's informers make none once their watches"
            + " are open). Steady state by kind: "
            + kinds(f.steadyRequests)
            + ". Cold start by"
            + " kind: "
            + kinds(f.coldRequests)
            + ". Deletions by kind: "
            + kinds(d.requests())
            + ". New groups by kind: "
            + kinds(b.requests())
            + ".");
    s.note(
        "Deletions: "
            + d.count()
            + " leader pods of groups spread over the range, deleted by"
            + " 16 threads released together; the clock starts at the release and stops, per group,"
            + " when the informer sees the new leader label. New groups: "
            + b.groups()
            + " groups and their pods created by 8 threads in the first namespace, pods first;"
            + " the clock starts before the first create and stops when the last group has"
            + " converged.");
  }

  /** The jar's path relative to the repository when it lies inside it (the usual case). */
  private static String shown(Path jar) {
    Path abs = jar.toAbsolutePath().normalize();
    Path cwd = Path.of("").toAbsolutePath();
    // Maven runs the benchmark from bench/; the repository is its parent.
    Path repo =
        cwd.getFileName() != null && cwd.getFileName().toString().equals("bench")
            ? cwd.getParent()
            : cwd;
    return abs.startsWith(repo) ? repo.relativize(abs).toString() : abs.toString();
  }

  private static String kinds(Map<String, Long> requests) {
    return requests.isEmpty()
        ? "none"
        : requests.entrySet().stream()
            .map(e -> e.getKey() + " " + e.getValue())
            .collect(Collectors.joining(", "));
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%.0f MiB", bytes / 1048576.0);
  }

  private static String verdict(boolean met) {
    return met ? ": met" : ": NOT met";
  }
}
