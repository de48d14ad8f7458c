package dev.baton.bench.scale;

import static dev.baton.bench.scale.NoisyClusterBench.CONTAINER;
import static dev.baton.bench.scale.NoisyClusterBench.container;

import dev.baton.bench.harness.BenchConfig;
import dev.baton.bench.harness.Report;
import java.util.List;
import java.util.Map;

/**
 * The noisy-cluster benchmark's sections of the report: failover and start by the number of
 * unrelated pods, and where the operator's memory goes.
 */
final class NoisyClusterReport {

  private final BenchConfig config;

  NoisyClusterReport(BenchConfig config) {
    this.config = config;
  }

  /**
   * Both sections, the runs in {@code all} as rows, each run in {@code failed} as a note; {@code
   * trials} is the number of failovers a reported run measured.
   */
  void write(Report report, List<NoisyClusterBench.Figures> all, List<String> failed, int trials) {
    Report.Section s =
        report.section(
            "noisy-cluster",
            "A noisy cluster: one LeaderGroup of 3 pods among unrelated pods of realistic size",
            "operator",
            "unrelated pods",
            "RSS (MiB)",
            "heap after GC (MiB)",
            "failover p50 (ms)",
            "failover p99 (ms)",
            "trials",
            "API requests to start",
            "started and leading (s)",
            "then settled (s)",
            "mock API: one pod GET p50 (ms)",
            "operator's own failover: mean / max (ms)");
    for (NoisyClusterBench.Figures f : all) {
      s.row(
          f.operator(),
          f.unrelated(),
          f.rssKiB() / 1024.0,
          f.heapAfterGc() / 1048576.0,
          f.failover().p50(),
          f.failover().p99(),
          f.failover().count(),
          CountingKubernetes.total(f.startRequests()),
          f.started().toMillis() / 1000.0,
          f.settled().toMillis() / 1000.0,
          f.apiGetMs(),
          Double.isNaN(f.operatorMeanMs())
              ? "n/a"
              : String.format("%.1f / %.1f", f.operatorMeanMs(), f.operatorMaxMs()));
    }
    s.note(
        "Each unrelated pod: three containers with env and volume mounts, a volume, managedFields,"
            + " a 2 KB last-applied-configuration annotation and a container status (about 4 KB of"
            + " JSON), in the group's namespace. The operator is the shipped jar ("
            + config.operatorJvm()
            + " "
            + container()
            + config.classArchiveNote()
            + (container().equals(CONTAINER)
                ? ": the heap sizing and collector the JVM picks itself in the chart's 512Mi"
                    + " container"
                : ": the JVM as this run's bench.noisyContainer shapes it")
            + ") against the mock API server in this JVM and a local redis-server; RSS from"
            + " /proc/<pid>/status once the group has a leader, heap after a full GC through JMX.");
    s.note(
        "Failover: the leader pod deleted (and recreated after), "
            + trials
            + " trials, from the delete call to the benchmark's pod watch showing another pod"
            + " labeled leader, once the operator settled (under 5% of a core over a second, after"
            + " the heap measurement). This JVM serves the API and watches the roles: an unreported"
            + " warm-up run (0 pods, 5 trials) comes first, then the sizes from the largest down,"
            + " so that the quiet case, the reference, is measured warmest. API requests"
            + " to start: every request the operator made from its start to the first leader"
            + " (lists, watches, writes), by count. Mock API: a GET of one pod from this JVM, 50"
            + " times after 20 to warm up, before the operator starts; the mock finds a named"
            + " object by its key (IndexedCrudDispatcher), as a real API server does, so a GET,"
            + " PATCH or DELETE of one pod costs the same among 30,000 pods as among none. The"
            + " operator's own failover: its baton_failover_duration_seconds over the trials, from"
            + " the moment it learned the leader was gone to the new leader labeled (the label"
            + " write's round trip to the mock included). This JVM's collections are logged to"
            + " bench/target/benchmark-jvm-gc.log.");
    for (NoisyClusterBench.Figures f : all) {
      s.note(
          f.operator()
              + ", "
              + f.unrelated()
              + " unrelated pods, requests to start: "
              + f.startRequests());
    }
    failed.forEach(s::note);
    memory(report, all);
  }

  /** Where the RSS goes: NMT's committed memory by category, as measured and after a full GC. */
  private static void memory(Report report, List<NoisyClusterBench.Figures> all) {
    Report.Section m =
        report.section(
            "noisy-memory",
            "A noisy cluster: the operator's memory by what holds it (MiB committed, Native Memory"
                + " Tracking), once it leads and again right after a full GC",
            "operator",
            "unrelated pods",
            "RSS",
            "NMT total",
            "Java heap",
            "class metadata",
            "threads",
            "code",
            "GC",
            "other (direct buffers)",
            "symbols",
            "rest",
            "RSS after a full GC",
            "Java heap after",
            "NMT total after");
    for (NoisyClusterBench.Figures f : all) {
      Map<String, Long> n = f.nativeKiB();
      long named =
          n.getOrDefault("Java Heap", 0L)
              + n.getOrDefault("Class", 0L)
              + n.getOrDefault("Thread", 0L)
              + n.getOrDefault("Code", 0L)
              + n.getOrDefault("GC", 0L)
              + n.getOrDefault("Other", 0L)
              + n.getOrDefault("Symbol", 0L);
      m.row(
          f.operator(),
          f.unrelated(),
          f.rssKiB() / 1024.0,
          n.getOrDefault("Total", 0L) / 1024.0,
          n.getOrDefault("Java Heap", 0L) / 1024.0,
          n.getOrDefault("Class", 0L) / 1024.0,
          n.getOrDefault("Thread", 0L) / 1024.0,
          n.getOrDefault("Code", 0L) / 1024.0,
          n.getOrDefault("GC", 0L) / 1024.0,
          n.getOrDefault("Other", 0L) / 1024.0,
          n.getOrDefault("Symbol", 0L) / 1024.0,
          (n.getOrDefault("Total", 0L) - named) / 1024.0,
          f.rssAfterGcKiB() / 1024.0,
          f.nativeAfterGcKiB().getOrDefault("Java Heap", 0L) / 1024.0,
          f.nativeAfterGcKiB().getOrDefault("Total", 0L) / 1024.0);
    }
    m.note(
        "NMT counts what the JVM committed; RSS counts what was touched, shared library pages"
            + " included, so the two differ. \"After a full GC\": the operator's heap collected"
            + " in full through JMX (as for the heap figure above), with its MaxHeapFreeRatio"
            + " shrinking what the collection left free.");
  }
}
