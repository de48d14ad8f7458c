package dev.baton.demo;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaseSpec;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockSpec;
import dev.baton.client.BatonLock;
import dev.baton.client.BatonLocks;
import dev.baton.client.BatonNames;
import dev.baton.client.LockOwner;
import dev.baton.operator.BatonOperator;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.RoleWatcher;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/**
 * The no-cluster demo: the real operator against an embedded Kubernetes API and a real Redis,
 * playing a script of failures (and a lock whose holder dies) and printing how fast each one
 * converged.
 */
public final class Demo {

  private static final String GROUP = "payments";
  private static final String ROLE = dev.baton.api.v1alpha1.LeaderGroupSpec.DEFAULT_ROLE_LABEL;
  private static final String LOCK = "nightly-migration";
  private static final Duration STEP_TIMEOUT = Duration.ofSeconds(20);

  private final PrintStream out;
  private final Sandbox sandbox;
  private final List<Step> steps = new ArrayList<>();

  private record Step(String name, boolean failover, long millis, boolean converged) {}

  private Demo(PrintStream out, Sandbox sandbox) {
    this.out = out;
    this.sandbox = sandbox;
  }

  /** {@code java -jar demo/target/baton-demo.jar} (an argument {@code demo} is allowed too). */
  public static void main(String[] args) {
    if (args.length > 1 || args.length == 1 && !args[0].equals("demo")) {
      System.err.println("usage: java -jar baton-demo.jar");
      System.exit(2);
    }
    System.exit(run(System.out));
  }

  /** Runs the script; returns the process exit code: 0 when every step converged. */
  public static int run(PrintStream out) {
    out.println(
        "Baton demo: an embedded Kubernetes API, a real redis-server and the Baton"
            + " operator, all in this process.");
    Sandbox sandbox;
    try {
      sandbox = new Sandbox(EmbeddedKubernetes.start(), BatonOperator::launch);
    } catch (RuntimeException e) {
      out.println("cannot start the demo: " + e.getMessage());
      return 2;
    }
    return run(out, sandbox);
  }

  /**
   * Runs the script against this sandbox, whatever runs its operator, and closes the sandbox;
   * returns the process exit code: 0 when every step converged.
   */
  static int run(PrintStream out, Sandbox sandbox) {
    // Ctrl-C: stop the operator, kill redis-server and close the API server's port.
    Thread cleanup = new Thread(sandbox::close, "baton-demo-cleanup");
    Runtime.getRuntime().addShutdownHook(cleanup);
    try (sandbox) {
      out.println("redis-server on port " + sandbox.redis.port() + "; starting the operator...");
      sandbox.startOperator();
      return new Demo(out, sandbox).play();
    } catch (RuntimeException e) {
      out.println("demo failed: " + e);
      return 1;
    } finally {
      try {
        Runtime.getRuntime().removeShutdownHook(cleanup);
      } catch (IllegalStateException shuttingDown) {
        // the hook is running already
      }
    }
  }

  private int play() {
    for (int i = 0; i < 3; i++) {
      sandbox.createPod(GROUP + "-" + i, GROUP);
    }
    LeaderGroup group = Sandbox.group(GROUP, GROUP);
    group.getSpec().setLease(new LeaseSpec("10s", "3s"));
    out.println("3 pods (payments-0..2) and LeaderGroup payments: ttl 10s, renew every 3s.\n");
    try (RoleWatcher watcher = new RoleWatcher(sandbox.client, Sandbox.NS, ROLE)) {
      step(
          "initial election",
          false,
          () -> sandbox.create(group),
          () -> leader() != null && sandbox.leaders(ROLE).size() == 1);

      String first = leader();
      step(
          "leader " + first + " deleted",
          true,
          () -> sandbox.deletePod(first),
          () -> leader() != null && !first.equals(leader()) && isLabeledLeader(leader()));
      sandbox.createPod(first, GROUP);

      String second = leader();
      step(
          "leader " + second + " not ready",
          true,
          () -> sandbox.setReady(second, false),
          () -> leader() != null && !second.equals(leader()) && isLabeledLeader(leader()));
      sandbox.setReady(second, true);

      String third = leader();
      long termBefore = term();
      step(
          "Redis restarted empty",
          false,
          sandbox.redis::restart,
          () -> term() > termBefore && third.equals(leader()) && isLabeledLeader(third));

      String target =
          sandbox.roles(ROLE).entrySet().stream()
              .filter(e -> e.getValue().equals(BatonNames.FOLLOWER))
              .map(Map.Entry::getKey)
              .sorted()
              .findFirst()
              .orElseThrow();
      step(
          "switchover to " + target,
          true,
          () -> sandbox.annotate(GROUP, BatonNames.SWITCHOVER_ANNOTATION, target),
          () -> target.equals(leader()) && isLabeledLeader(target));

      playLock();
      summary(watcher);
    }
    boolean ok = steps.stream().allMatch(Step::converged);
    out.println(ok ? "\nEvery step converged." : "\nSome steps did not converge.");
    return ok ? 0 : 1;
  }

  /**
   * An application takes a RedisLock with the client library, as the pod it runs in; the pod is
   * deleted; the operator reaps the lock at once instead of waiting for its 30 s ttl.
   */
  private void playLock() {
    RedisLock lock = new RedisLock();
    lock.setMetadata(new ObjectMetaBuilder().withName(LOCK).withNamespace(Sandbox.NS).build());
    RedisLockSpec spec = new RedisLockSpec();
    spec.setTtl("30s");
    lock.setSpec(spec);
    String pod =
        sandbox.roles(ROLE).entrySet().stream()
            .filter(e -> e.getValue().equals(BatonNames.FOLLOWER))
            .map(Map.Entry::getKey)
            .sorted()
            .findFirst()
            .orElseThrow();
    String uid = sandbox.pod(pod).getMetadata().getUid();
    Config config = new Config();
    config.useSingleServer().setAddress(sandbox.redis.url());
    RedissonClient redisson = Redisson.create(config);
    try {
      BatonLock migration =
          BatonLocks.singleRedis(redisson, LockOwner.pod(Sandbox.NS, pod, uid))
              .lock(Sandbox.NS + "/" + LOCK, Duration.ofSeconds(30));
      // The RedisLock makes the lock visible to Kubernetes (and the operator reserves its fencing
      // tokens); the application takes it.
      step(
          "lock " + LOCK + " taken by " + pod,
          false,
          () -> {
            sandbox.client.resource(lock).create();
            migration.tryAcquire().orElseThrow();
          },
          () -> (Sandbox.NS + "/" + pod).equals(lockHolder()));
      step(
          "lock holder " + pod + " deleted",
          false,
          () -> sandbox.deletePod(pod),
          () -> lockHolder() == null && migration.holder().isEmpty());
    } finally {
      redisson.shutdown();
    }
  }

  private String lockHolder() {
    RedisLock l =
        sandbox.client.resources(RedisLock.class).inNamespace(Sandbox.NS).withName(LOCK).get();
    String holder = l == null || l.getStatus() == null ? null : l.getStatus().getHolder();
    return holder == null || holder.isEmpty() ? null : holder;
  }

  private void step(String name, boolean failover, Runnable action, BooleanSupplier done) {
    out.println("== " + name);
    long start = System.nanoTime();
    action.run();
    long deadline = start + STEP_TIMEOUT.toNanos();
    boolean converged = false;
    while (System.nanoTime() < deadline) {
      if (done.getAsBoolean()) {
        converged = true;
        break;
      }
      pause();
    }
    long millis = (System.nanoTime() - start) / 1_000_000;
    steps.add(new Step(name, failover, millis, converged));
    printPods();
    out.println(
        converged
            ? "   converged in " + millis + " ms\n"
            : "   did NOT converge within " + STEP_TIMEOUT.toSeconds() + " s\n");
  }

  private void printPods() {
    for (Pod p : sandbox.pods()) {
      var labels = p.getMetadata().getLabels();
      var annotations = p.getMetadata().getAnnotations();
      String role = labels == null ? "-" : labels.getOrDefault(ROLE, "-");
      String term = annotations == null ? null : annotations.get(BatonNames.TERM_ANNOTATION);
      boolean ready =
          p.getStatus().getConditions().stream()
              .anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
      out.printf(
          "   %-12s %-9s %-10s %s%n",
          p.getMetadata().getName(),
          role,
          ready ? "ready" : "not ready",
          term == null ? "" : "term " + term);
    }
  }

  private void summary(RoleWatcher watcher) {
    out.println("Summary");
    out.printf("   %-44s %8s %s%n", "step", "ms", "");
    for (Step s : steps) {
      out.printf(
          "   %-44s %8d %s%n",
          s.name(), s.millis(), s.converged() ? (s.failover() ? "failover" : "") : "NOT CONVERGED");
    }
    out.println(
        "   Times run from the change at the API to the new state seen by a client"
            + " polling the API every 2 ms.");
    List<String> violations = watcher.violations();
    out.println(
        violations.isEmpty()
            ? "   A watcher saw every label change: never two leaders at once."
            : "   VIOLATIONS: " + violations);
    if (!violations.isEmpty()) {
      steps.add(new Step("one leader at a time", false, 0, false));
    }
  }

  private String leader() {
    LeaderGroup g = sandbox.get(GROUP);
    String leader = g == null || g.getStatus() == null ? null : g.getStatus().getLeader();
    return leader == null || leader.isEmpty() ? null : leader;
  }

  private boolean isLabeledLeader(String pod) {
    return sandbox.leaders(ROLE).equals(List.of(pod));
  }

  private long term() {
    LeaderGroup g = sandbox.get(GROUP);
    return g == null || g.getStatus() == null || g.getStatus().getTerm() == null
        ? 0
        : g.getStatus().getTerm();
  }

  private static void pause() {
    try {
      Thread.sleep(2);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted");
    }
  }
}
