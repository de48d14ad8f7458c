package dev.baton.bench.locks;

import dev.baton.bench.harness.BenchConfig;
import dev.baton.bench.harness.Progress;
import dev.baton.bench.harness.Report;
import java.nio.file.Files;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.results.format.ResultFormatType;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.util.Statistics;

/**
 * Lock operations: JMH measures throughput (Throughput mode) and the latency distribution
 * (SampleTime mode) of acquire+release at 1 and 16 threads; a separate one-thread pass counts the
 * round trips and commands Redis sees per operation.
 */
public final class LockOpsBench {

  static final int[] THREADS = {1, 16};

  private final BenchConfig config;

  public LockOpsBench(BenchConfig config) {
    this.config = config;
  }

  public void run(Report report) throws Exception {
    List<RoundTrips.Count> counts;
    Progress.line("locks: counting round trips per operation");
    try (RedisFleet fleet = RedisFleet.start(5)) {
      counts = new RoundTrips(fleet, config.quick() ? 200 : 1000).all();
    }
    Map<String, Double> tripsBySubject = new HashMap<>();
    for (LockSubject s : LockSubject.values()) {
      counts.stream()
          .filter(c -> c.operation().startsWith(s.description() + ":"))
          .findFirst()
          .ifPresent(c -> tripsBySubject.put(s.name(), c.roundTrips()));
    }

    Report.Section ops =
        report.section(
            "locks",
            "Lock operations: acquire + release of a free lock (latency in µs)",
            "implementation",
            "threads",
            "ops/s",
            "iterations min-max",
            "p50",
            "p90",
            "p99",
            "max",
            "round trips/op");
    for (int threads : THREADS) {
      Progress.line("locks: JMH, " + threads + " thread(s)");
      Map<String, Map<Mode, RunResult>> results = jmh(threads);
      for (LockSubject s : LockSubject.values()) {
        Map<Mode, RunResult> r = results.getOrDefault(s.name(), Map.of());
        RunResult thr = r.get(Mode.Throughput);
        RunResult sample = r.get(Mode.SampleTime);
        Statistics st = sample == null ? null : sample.getPrimaryResult().getStatistics();
        ops.row(
            s.description(),
            threads,
            thr == null ? Double.NaN : thr.getPrimaryResult().getScore() * 1e6,
            thr == null ? "" : range(thr.getPrimaryResult().getStatistics()),
            st == null ? Double.NaN : st.getPercentile(50),
            st == null ? Double.NaN : st.getPercentile(90),
            st == null ? Double.NaN : st.getPercentile(99),
            st == null ? Double.NaN : st.getMax(),
            tripsBySubject.getOrDefault(s.name(), Double.NaN));
      }
    }
    ops.note(
        "JMH "
            + jmhShape()
            + "; throughput from Throughput mode (mean of the iterations,"
            + " with the slowest and fastest iteration beside it), percentiles from SampleTime mode. Each thread locks its own key (no contention); ttl 30 s. Redis "
            + "7 on loopback, one redis-server per instance, all on this machine.");
    ops.note(
        "Every implementation uses the same Redisson 4.7.0 configuration: one client per"
            + " Redis instance, script cache on (EVALSHA), 16 to 32 connections, no PINGs. Baton's"
            + " lock scripts and Redlock are the baton-client module (LockStore); the lease scripts"
            + " are the operator's RedisLeaseStore; RLock is Redisson's lock() with its watchdog.");

    Report.Section rt =
        report.section(
            "round-trips",
            "Redis round trips and commands per operation (one thread, one at a time)",
            "operation",
            "round trips",
            "commands executed",
            "of which EVAL/EVALSHA");
    for (RoundTrips.Count c : counts) {
      rt.row(c.operation(), c.roundTrips(), c.commands(), c.scriptCalls());
    }
    rt.note(
        "Round trips are Redis's own count of read events on client sockets"
            + " (INFO stats total_reads_processed), per operation, over "
            + (config.quick() ? 200 : 1000)
            + " operations after a warm-up; a client that waits for"
            + " each reply makes exactly one per request (the calibration row checks it)."
            + " Commands (INFO commandstats) include those called inside scripts.");
    rt.note(
        "Redlock rows: the requests of one step go to all instances in parallel, so round"
            + " trips are the largest per-instance count (the sequential depth) and commands are"
            + " summed over the instances.");
    rt.note("Target (docs/design.md): one acquire or renew = one Redis round trip.");
  }

  /** The slowest and fastest iteration, in operations per second. */
  private static String range(Statistics iterations) {
    return Report.format(iterations.getMin() * 1e6)
        + " - "
        + Report.format(iterations.getMax() * 1e6);
  }

  private String jmhShape() {
    return config.quick()
        ? "1.37, 1 fork, 1 x 0.5 s warm-up, 1 x 1 s measurement per mode"
        : "1.37, 1 fork, 2 x 1 s warm-up, 5 x 1 s measurement per mode";
  }

  private Map<String, Map<Mode, RunResult>> jmh(int threads) throws Exception {
    Files.createDirectories(config.out());
    ChainedOptionsBuilder options =
        new OptionsBuilder()
            .include(LockBenchmarks.class.getName() + ".acquireRelease")
            .mode(Mode.Throughput)
            .mode(Mode.SampleTime)
            .timeUnit(TimeUnit.MICROSECONDS)
            .threads(threads)
            .forks(1)
            .jvmArgs("-Xms512m", "-Xmx512m", "-Dbaton.log.level=warn")
            .shouldFailOnError(true)
            .output(config.out().resolve("jmh-" + threads + "-threads.log").toString())
            .result(config.out().resolve("jmh-" + threads + "-threads.json").toString())
            .resultFormat(ResultFormatType.JSON);
    if (config.quick()) {
      options
          .warmupIterations(1)
          .warmupTime(TimeValue.milliseconds(500))
          .measurementIterations(1)
          .measurementTime(TimeValue.seconds(1));
    } else {
      options
          .warmupIterations(2)
          .warmupTime(TimeValue.seconds(1))
          .measurementIterations(5)
          .measurementTime(TimeValue.seconds(1));
    }
    Collection<RunResult> results = new Runner(options.build()).run();
    Map<String, Map<Mode, RunResult>> out = new HashMap<>();
    for (RunResult r : results) {
      BenchmarkParams p = r.getParams();
      out.computeIfAbsent(p.getParam("subject"), k -> new HashMap<>()).put(p.getMode(), r);
    }
    return out;
  }
}
