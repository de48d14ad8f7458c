package dev.baton.bench.harness;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What one benchmark run measures and how long it may take, from system properties (the Maven
 * profile passes {@code -Dbench.*} through). Quick mode keeps the same steps with fewer trials and
 * shorter windows: a smoke run whose figures are not for quoting.
 */
public record BenchConfig(
    boolean quick,
    Set<String> only,
    String label,
    Path out,
    Path operatorJar,
    String operatorJvm,
    int failoverTrials,
    int failoverWarmup,
    int anchorTrials,
    int groups,
    int namespaces,
    int steadySeconds,
    int deletions,
    Path previousJar,
    int operatorFailoverTrials,
    int leadershipTrials,
    int routingTrials,
    List<Integer> noisyPods,
    boolean redisCluster,
    int processTrials,
    String classArchive,
    int faultTrials) {

  public static final Set<String> ALL =
      Set.of(
          "failover",
          "agent-hostile",
          "failover-process",
          "failover-path",
          "operator-failover",
          "leadership",
          "routing",
          "locks",
          "scale",
          "noisy",
          "agent",
          "agent-http",
          "relay");

  /**
   * Parts that run only when named: "agent-footprint" is the agent benchmark's footprint alone (the
   * full "agent" run measures it too), for a before-and-after of one change to the jar.
   */
  public static final Set<String> ON_REQUEST = Set.of("agent-footprint");

  public static BenchConfig from(Map<String, String> props) {
    Function<String, String> get =
        k -> {
          String v = props.get(k);
          return v == null || v.isBlank() ? null : v.trim();
        };
    boolean quick = Boolean.parseBoolean(or(get.apply("bench.quick"), "false"));
    String onlyProp = or(get.apply("bench.only"), "all");
    Set<String> only =
        onlyProp.equals("all")
            ? ALL
            : Arrays.stream(onlyProp.split(","))
                .map(String::trim)
                .filter(s -> !s.isEmpty())
                .collect(Collectors.toUnmodifiableSet());
    for (String s : only) {
      if (!ALL.contains(s) && !ON_REQUEST.contains(s)) {
        throw new IllegalArgumentException(
            "bench.only: unknown benchmark '" + s + "', expected " + ALL + " or " + ON_REQUEST);
      }
    }
    int groups = Integer.parseInt(or(get.apply("bench.groups"), quick ? "100" : "1000"));
    return new BenchConfig(
        quick,
        only,
        or(get.apply("bench.label"), ""),
        Path.of(or(get.apply("bench.out"), "target/bench")),
        Path.of(or(get.apply("bench.operatorJar"), "operator/target/baton-operator.jar")),
        or(
            get.apply("bench.operatorJvm"),
            "-Xmx384m -XX:+ExitOnOutOfMemoryError -XX:TieredStopAtLevel=1 -XX:MinHeapFreeRatio=20"
                + " -XX:MaxHeapFreeRatio=40"),
        Integer.parseInt(or(get.apply("bench.failoverTrials"), quick ? "20" : "200")),
        quick ? 2 : 10,
        Integer.parseInt(or(get.apply("bench.anchorTrials"), quick ? "1" : "5")),
        quick ? Math.min(groups, 100) : groups,
        Integer.parseInt(or(get.apply("bench.namespaces"), "1")),
        Integer.parseInt(or(get.apply("bench.steadySeconds"), quick ? "10" : "60")),
        quick ? 10 : 100,
        get.apply("bench.previousJar") == null ? null : Path.of(get.apply("bench.previousJar")),
        Integer.parseInt(or(get.apply("bench.operatorFailoverTrials"), quick ? "3" : "20")),
        Integer.parseInt(or(get.apply("bench.leadershipTrials"), quick ? "10" : "100")),
        Integer.parseInt(or(get.apply("bench.routingTrials"), quick ? "10" : "100")),
        Arrays.stream(or(get.apply("bench.noisyPods"), "0,10000,30000").split(","))
            .map(String::trim)
            .map(Integer::parseInt)
            .toList(),
        redisMode(or(get.apply("bench.redis"), "single")),
        Integer.parseInt(or(get.apply("bench.processTrials"), quick ? "5" : "30")),
        or(get.apply("bench.classArchive"), "train"),
        Integer.parseInt(or(get.apply("bench.faultTrials"), quick ? "2" : "5")));
  }

  private static boolean redisMode(String mode) {
    return switch (mode) {
      case "single" -> false;
      case "cluster" -> true;
      default ->
          throw new IllegalArgumentException(
              "bench.redis: unknown mode '" + mode + "', expected single or cluster");
    };
  }

  /** A description of the Redis the failover and scale benchmarks run on. */
  public String redisDescription() {
    return redisCluster
        ? "a Redis Cluster of 3 masters and 3 replicas (redis-server processes)"
        : "one redis-server";
  }

  /**
   * The JVM options of an operator process of this jar: {@link #operatorJvm()} and, unless {@code
   * bench.classArchive=none}, the jar's class archive, as the image starts it.
   */
  public String operatorJvm(Path jar) {
    return operatorJvm + ClassArchives.option(this, jar);
  }

  /** How the operator processes' JVM options end, for the reports. */
  public String classArchiveNote() {
    return switch (classArchive) {
      case "none" -> "";
      case "train" ->
          " -XX:SharedArchiveFile=<the jar's class archive, written by the image build's training"
              + " run on this JVM>";
      default -> " -XX:SharedArchiveFile=" + classArchive;
    };
  }

  public boolean runs(String benchmark) {
    return only.contains(benchmark);
  }

  private static String or(String v, String fallback) {
    return v == null ? fallback : v;
  }
}
