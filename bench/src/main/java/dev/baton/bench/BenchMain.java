package dev.baton.bench;

import dev.baton.bench.agent.AgentBench;
import dev.baton.bench.failover.FailoverBench;
import dev.baton.bench.failover.OperatorFailoverBench;
import dev.baton.bench.failover.ShippedJarFailover;
import dev.baton.bench.harness.BenchConfig;
import dev.baton.bench.harness.Progress;
import dev.baton.bench.harness.Report;
import dev.baton.bench.leadership.LeadershipBench;
import dev.baton.bench.locks.LockOpsBench;
import dev.baton.bench.routing.RoutingBench;
import dev.baton.bench.scale.NoisyClusterBench;
import dev.baton.bench.scale.ScaleBench;
import java.util.HashMap;
import java.util.Map;

/**
 * Runs the benchmarks side by side in one process on one machine, prints one Markdown report and
 * writes it, with the raw numbers as JSON, under {@code bench.out}. Exits non-zero when a benchmark
 * could not complete (its section then says why).
 */
public final class BenchMain {

  private BenchMain() {}

  public static void main(String[] args) throws Exception {
    Map<String, String> props = new HashMap<>();
    System.getProperties().forEach((k, v) -> props.put(k.toString(), v.toString()));
    BenchConfig config = BenchConfig.from(props);
    Report report = new Report(Machine.describe(config));
    boolean ok = true;
    if (config.runs("failover")) {
      ok &= run("failover", () -> new FailoverBench(config).run(report), report);
    }
    // The in-process figures and the shipped jar's, side by side.
    if (config.runs("failover") || config.runs("failover-process")) {
      ok &= run("failover-process", () -> new ShippedJarFailover(config).run(report), report);
    }
    if (config.runs("failover-path")) {
      ok &=
          run(
              "failover-path",
              () -> new dev.baton.bench.failover.FailoverPathBench(config).run(report),
              report);
    }
    if (config.runs("operator-failover")) {
      ok &= run("operator-failover", () -> new OperatorFailoverBench(config).run(report), report);
    }
    if (config.runs("leadership")) {
      ok &= run("leadership", () -> new LeadershipBench(config).run(report), report);
    }
    if (config.runs("routing")) {
      ok &= run("routing", () -> new RoutingBench(config).run(report), report);
    }
    if (config.runs("locks")) {
      ok &= run("locks", () -> new LockOpsBench(config).run(report), report);
    }
    if (config.runs("scale")) {
      ok &= run("scale", () -> new ScaleBench(config).run(report), report);
    }
    if (config.runs("noisy")) {
      ok &= run("noisy", () -> new NoisyClusterBench(config).run(report), report);
    }
    if (config.runs("agent")) {
      ok &= run("agent", () -> new AgentBench(config).run(report), report);
    }
    if (config.runs("agent-footprint")) {
      ok &= run("agent-footprint", () -> new AgentBench(config).footprint(report), report);
    }
    if (config.runs("relay")) {
      ok &= run("relay", () -> new dev.baton.bench.agent.RelayBench(config).run(report), report);
    }
    if (config.runs("agent-http")) {
      ok &=
          run(
              "agent-http",
              () -> new dev.baton.bench.agent.AgentHttpBench(config).run(report),
              report);
    }
    if (config.runs("agent-hostile")) {
      ok &=
          run(
              "agent-hostile",
              () -> new dev.baton.bench.agent.HostileLoad(config).run(report),
              report);
    }
    report.write(config.out());
    System.out.println();
    System.out.println(report.markdown());
    System.out.println(
        "Written to " + config.out().toAbsolutePath().resolve("results.md") + " and results.json");
    System.exit(ok ? 0 : 1);
  }

  private interface Step {
    void run() throws Exception;
  }

  private static boolean run(String name, Step step, Report report) {
    long start = System.nanoTime();
    Progress.line("== " + name + " ==");
    try {
      step.run();
      Progress.line(
          "== " + name + " done in " + (System.nanoTime() - start) / 1_000_000_000 + " s ==");
      return true;
    } catch (Exception | AssertionError e) {
      e.printStackTrace();
      report
          .section(name + "-failed", name + ": did not complete", "error")
          .row(e.getClass().getSimpleName() + ": " + e.getMessage());
      return false;
    }
  }
}
