package dev.baton.bench.scale;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaseSpec;
import dev.baton.bench.harness.BenchConfig;
import dev.baton.bench.harness.Percentiles;
import dev.baton.bench.harness.Progress;
import dev.baton.bench.harness.Report;
import dev.baton.bench.harness.Waits;
import dev.baton.testkit.OperatorProcess;
import dev.baton.testkit.RealisticPods;
import dev.baton.testkit.RoleWatcher;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * A cluster full of pods that have nothing to do with Baton: one LeaderGroup of 3 pods among 0,
 * 10,000 and 30,000 unrelated pods of realistic size in the same namespace, the shipped jar in its
 * own process. Operator RSS and heap after GC once started, then leader-pod deletions: failover
 * p50/p99, and the Kubernetes API requests the operator made. With bench.previousJar, the same for
 * an earlier operator, side by side.
 */
public final class NoisyClusterBench {

  static final String ROLE = dev.baton.api.v1alpha1.LeaderGroupSpec.DEFAULT_ROLE_LABEL;
  static final Duration TIMEOUT = Duration.ofSeconds(30);

  private final BenchConfig config;

  public NoisyClusterBench(BenchConfig config) {
    this.config = config;
  }

  record Figures(
      String operator,
      int unrelated,
      long rssKiB,
      long heapAfterGc,
      long rssAfterGcKiB,
      Map<String, Long> nativeKiB,
      Map<String, Long> nativeAfterGcKiB,
      Percentiles failover,
      int timeouts,
      Map<String, Long> startRequests,
      Duration started,
      Duration settled,
      double apiGetMs,
      double operatorMeanMs,
      double operatorMaxMs) {}

  public void run(Report report) throws Exception {
    List<Integer> sizes = config.quick() ? List.of(0, 2_000) : config.noisyPods();
    List<Figures> all = new ArrayList<>();
    List<String> failed = new ArrayList<>();
    // This JVM serves the API and watches the roles, and storing and listing tens of thousands of
    // pods warms it further: measured first, the quiet case (the reference) looked slowest. So a
    // warm-up run, then the largest size first and the quiet case last, in the warmest JVM.
    measureOrNote(new ArrayList<>(), failed, "warm-up", config.operatorJar(), 0);
    for (int n : sizes.stream().sorted(Comparator.reverseOrder()).toList()) {
      measureOrNote(all, failed, "current", config.operatorJar(), n);
      if (config.previousJar() != null) {
        measureOrNote(all, failed, "previous", config.previousJar(), n);
      }
    }
    all.sort(Comparator.comparingInt(Figures::unrelated));
    new NoisyClusterReport(config).write(report, all, failed, trials("current"));
  }

  /** A run that fails (the operator killed by OutOfMemoryError, say) is a finding, not an abort. */
  private void measureOrNote(
      List<Figures> all, List<String> failed, String name, Path jar, int unrelated) {
    try {
      all.add(measure(name, jar, unrelated));
    } catch (Exception | AssertionError e) {
      Path log = config.out().resolve("operator-noisy-" + name + "-" + unrelated + ".log");
      String cause = "";
      try {
        if (Files.readString(log).contains("OutOfMemoryError")) {
          cause = " (the operator died of OutOfMemoryError)";
        }
      } catch (Exception unreadable) {
        // the message alone then
      }
      failed.add(
          name
              + ", "
              + unrelated
              + " unrelated pods: did not complete"
              + cause
              + ": "
              + e.getMessage());
    }
  }

  /**
   * The JVM as the chart's 512Mi container shapes it. MaxRAM stands for the container's limit: the
   * heap starts at 1.6% of it (8 MiB) and grows as needed, as in the pod; on this 23 GiB machine it
   * would start at 368 MiB, and RSS would measure how much of that start the listing touched. The
   * collector is the one the JVM picks in such a container (below 1,792 MB it is not a "server
   * class" machine): Serial. {@code -Dbench.noisyContainer=...} replaces these two, to measure the
   * JVM as another machine or container shapes it (empty: this machine's own ergonomics).
   */
  static final String CONTAINER = "-XX:MaxRAM=512m -XX:+UseSerialGC";

  static String container() {
    return System.getProperty("bench.noisyContainer", CONTAINER).trim();
  }

  private String jvm(Path jar) {
    return config.operatorJvm(jar) + " " + container() + " -XX:NativeMemoryTracking=summary";
  }

  private int trials(String name) {
    return config.quick() || name.equals("warm-up") ? 5 : 30;
  }

  private Figures measure(String name, Path jar, int unrelated) throws Exception {
    Progress.line("noisy: " + name + " operator, " + unrelated + " unrelated pods");
    Path log = config.out().resolve("operator-noisy-" + name + "-" + unrelated + ".log");
    Files.createDirectories(config.out());
    try (CountingKubernetes kube = CountingKubernetes.start();
        BenchRedis redis = BenchRedis.start(false);
        KubernetesClient admin = kube.newClient()) {
      createUnrelated(kube, unrelated);
      for (int i = 0; i < 3; i++) {
        admin
            .pods()
            .resource(RealisticPods.pod(Sandbox.NS, "payments-" + i, Map.of("app", "payments")))
            .create();
      }
      double apiGetMs = apiGetMs(admin);
      LeaderGroup group = Sandbox.group("payments", "payments");
      group.getSpec().setLease(new LeaseSpec());
      // Left out, as a user would: the previous operator's model does not know the field.
      group.getSpec().setFailoverDelay(null);
      admin.resource(group).create();
      try (KubernetesClient watchClient = kube.newClient();
          RoleWatcher roles = new RoleWatcher(watchClient, Sandbox.NS, ROLE)) {
        // Before the clock starts: the first call for a jar trains its class archive.
        String jvm = jvm(jar);
        Map<String, Long> before = kube.requests();
        long start = System.nanoTime();
        try (OperatorProcess operator =
            OperatorProcess.ofJar(
                    "noisy",
                    kube.embedded(),
                    Map.of("BATON_REDIS_URL", redis.url(), "BATON_LEADER_ELECTION", "false"),
                    jar,
                    jvm,
                    log)
                .start()) {
          Waits.require(() -> roles.leaders().size() == 1, Duration.ofMinutes(3), "a leader");
          Duration started = Duration.ofNanos(System.nanoTime() - start);
          Map<String, Long> startRequests = CountingKubernetes.minus(kube.requests(), before);
          Waits.sleep(Duration.ofSeconds(3));
          long rss = rssKiB(operator.pid());
          Map<String, Long> nmt = nativeMemory(operator.pid());
          long heap = JvmMemory.afterGc(operator.pid()).heapUsed();
          long rssAfterGc = rssKiB(operator.pid());
          Map<String, Long> nmtAfterGc = nativeMemory(operator.pid());
          Duration settled = settle(operator);
          // The mock in this JVM leaves about 500 MB of garbage from storing and listing 30,000
          // pods; uncollected, it made this JVM's young collections 40-100 ms during the trials.
          System.gc();
          List<Double> ms = new ArrayList<>();
          int timeouts = 0;
          for (int t = 0; t < trials(name); t++) {
            String old = roles.leaders().iterator().next();
            int changes = roles.leaderChanges();
            long t0 = System.nanoTime();
            admin.pods().inNamespace(Sandbox.NS).withName(old).delete();
            if (Waits.until(
                () -> roles.leaderChanges() > changes && roles.leaders().size() == 1,
                TIMEOUT,
                Duration.ofMillis(1))) {
              ms.add((roles.lastLeaderChangeNanos() - t0) / 1e6);
              Progress.line(String.format("noisy: trial %d, %.1f ms", t, ms.get(ms.size() - 1)));
            } else {
              timeouts++;
            }
            Waits.require(
                () -> admin.pods().inNamespace(Sandbox.NS).withName(old).get() == null,
                TIMEOUT,
                "the old pod gone");
            admin
                .pods()
                .resource(RealisticPods.pod(Sandbox.NS, old, Map.of("app", "payments")))
                .create();
            Waits.require(
                () -> roles.leaders().size() == 1 && roleCount(admin) == 3,
                TIMEOUT,
                "the group to settle");
          }
          double[] own = ownFailover(operator.httpPort());
          return new Figures(
              name,
              unrelated,
              rss,
              heap,
              rssAfterGc,
              nmt,
              nmtAfterGc,
              Percentiles.of(ms),
              timeouts,
              startRequests,
              started,
              settled,
              apiGetMs,
              own[0],
              own[1]);
        }
      }
    }
  }

  /**
   * Waits until the operator used less than 5% of a core over a second, at most a minute. Among
   * 30,000 pods its start goes on after the first leader (the listing's tail, the compiler's queue,
   * collections), and the first trials ran in it: slower than the quiet case's, then equal. A
   * failover in a running cluster meets a settled operator; the first failovers after a start are
   * the scale and failover benchmarks' subject.
   */
  private static Duration settle(OperatorProcess operator) {
    long t0 = System.nanoTime();
    long deadline = t0 + Duration.ofMinutes(1).toNanos();
    long cpu = operator.cpu().toNanos();
    long wall = System.nanoTime();
    while (System.nanoTime() < deadline) {
      Waits.sleep(Duration.ofSeconds(1));
      long c = operator.cpu().toNanos();
      long w = System.nanoTime();
      if (c - cpu < 0.05 * (w - wall)) {
        break;
      }
      cpu = c;
      wall = w;
    }
    return Duration.ofNanos(System.nanoTime() - t0);
  }

  private static int roleCount(KubernetesClient admin) {
    return admin
        .pods()
        .inNamespace(Sandbox.NS)
        .withLabel("app", "payments")
        .list()
        .getItems()
        .stream()
        .filter(p -> p.getMetadata().getLabels().containsKey(ROLE))
        .toList()
        .size();
  }

  /**
   * Stored straight into the mock API server: created one by one, 30,000 pods take the mock most of
   * an hour (each create scans every stored object). The operator starts after, and lists them as
   * it would any pods.
   */
  private static void createUnrelated(CountingKubernetes kube, int n) {
    List<Pod> pods = new ArrayList<>(n);
    for (int i = 0; i < n; i++) {
      pods.add(
          RealisticPods.pod(Sandbox.NS, "unrelated-" + i, Map.of("app", "unrelated-" + (i % 50))));
    }
    kube.embedded().preload(pods);
  }

  /**
   * Mean and max of the operator's failover timer, from its /metrics; NaN when it has none (an
   * operator from before the metric).
   */
  private static double[] ownFailover(int httpPort) {
    double sum = Double.NaN;
    double count = Double.NaN;
    double max = Double.NaN;
    try {
      HttpResponse<String> r =
          HttpClient.newHttpClient()
              .send(
                  HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/metrics"))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
      for (String line : r.body().split("\n")) {
        if (line.startsWith("#")) {
          continue;
        }
        String value = line.substring(line.lastIndexOf(' ') + 1);
        if (line.startsWith("baton_failover_duration_seconds_sum")) {
          sum = Double.parseDouble(value);
        } else if (line.startsWith("baton_failover_duration_seconds_count")) {
          count = Double.parseDouble(value);
        } else if (line.startsWith("baton_failover_duration_seconds_max")) {
          max = Double.parseDouble(value);
        }
      }
    } catch (Exception e) {
      return new double[] {Double.NaN, Double.NaN};
    }
    return new double[] {sum / count * 1000, max * 1000};
  }

  private static double apiGetMs(KubernetesClient admin) {
    for (int i = 0; i < 20; i++) {
      // The mock server's own code warms up first.
      admin.pods().inNamespace(Sandbox.NS).withName("payments-0").get();
    }
    List<Double> ms = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      long t0 = System.nanoTime();
      admin.pods().inNamespace(Sandbox.NS).withName("payments-0").get();
      ms.add((System.nanoTime() - t0) / 1e6);
    }
    return Percentiles.of(ms).p50();
  }

  private static final java.util.regex.Pattern NMT_CATEGORY =
      java.util.regex.Pattern.compile(
          "-\\s+([A-Za-z][A-Za-z ]*?) \\(reserved=(\\d+)KB, committed=(\\d+)KB\\)");

  /**
   * What the JVM has committed, by Native Memory Tracking's category (Java Heap, Class, Thread,
   * Code, GC, Internal, Other for direct buffers, Symbol, ...), in KiB; plus "Total".
   */
  static Map<String, Long> nativeMemory(long pid) throws Exception {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(pid),
                "VM.native_memory",
                "summary")
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes());
    p.waitFor();
    Map<String, Long> committed = new java.util.LinkedHashMap<>();
    java.util.regex.Matcher total =
        java.util.regex.Pattern.compile("Total: reserved=(\\d+)KB, committed=(\\d+)KB")
            .matcher(out);
    if (total.find()) {
      committed.put("Total", Long.parseLong(total.group(2)));
    }
    java.util.regex.Matcher m = NMT_CATEGORY.matcher(out);
    while (m.find()) {
      committed.put(m.group(1).trim(), Long.parseLong(m.group(3)));
    }
    return committed;
  }

  private static long rssKiB(long pid) throws Exception {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    return -1;
  }
}
