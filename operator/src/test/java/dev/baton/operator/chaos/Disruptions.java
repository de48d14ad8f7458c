package dev.baton.operator.chaos;

import static dev.baton.operator.chaos.ChaosWorld.GROUPS;
import static dev.baton.operator.chaos.ChaosWorld.PODS;
import static dev.baton.testkit.Sandbox.NS;

import dev.baton.client.BatonNames;
import dev.baton.client.ElectionKeys;
import dev.baton.testkit.FaultInjector;
import dev.baton.testkit.InvariantChecker;
import dev.baton.testkit.LocalRedis;
import dev.baton.testkit.LocalRedisCluster;
import dev.baton.testkit.OperatorProcess;
import dev.baton.testkit.Sandbox;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * The disruptions of one chaos run ({@link ChaosIT}), drawn from the run's seed: pods deleted and
 * readiness flipped, Redis (or a Redis Cluster's master) killed, hung or resharded, operators
 * killed, API faults switched, switchovers; each undone a little later, as a kubelet or an on-call
 * engineer would. Then the healing, after which every group must converge again.
 */
final class Disruptions {

  private final Random random;
  private final long seconds;

  /** The Redis Cluster of a cluster run; null when the sandbox's single Redis is disrupted. */
  private final LocalRedisCluster cluster;

  private volatile boolean redisFrozen;
  private final List<Thread> reshards = new ArrayList<>();
  private final Map<String, Integer> actions = new TreeMap<>();
  private final List<Pending> pending = new ArrayList<>();

  private record Pending(long dueNanos, String what, Runnable action) {}

  Disruptions(Random random, long seconds, LocalRedisCluster cluster) {
    this.random = random;
    this.seconds = seconds;
    this.cluster = cluster;
  }

  /** How many disruptions of each kind were played, for the run's report. */
  Map<String, Integer> actions() {
    return actions;
  }

  void play(
      Sandbox s, FaultInjector faults, List<OperatorProcess> operators, InvariantChecker checker) {
    long deadline = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
    while (System.nanoTime() < deadline) {
      sleep(200 + random.nextInt(600));
      runDue(checker);
      for (OperatorProcess op : operators) {
        if (!op.alive() && pending.stream().noneMatch(p -> p.what().equals("start " + op.name()))) {
          // It exited by itself (lost its Lease under API faults): restarted, as a kubelet would.
          checker.disrupted(op.name() + " exited; restarting");
          start(op, checker);
        }
      }
      int roll = random.nextInt(100);
      String group = "g" + random.nextInt(GROUPS);
      String pod = group + "-" + random.nextInt(PODS);
      if (roll < 30) {
        act("delete pod", checker, pod);
        retry(() -> s.deletePod(pod));
        later(
            1000 + random.nextInt(2000),
            "recreate " + pod,
            () -> {
              if (s.pod(pod) == null) {
                s.createPod(pod, group);
              }
            });
      } else if (roll < 55) {
        boolean ready = random.nextBoolean();
        act(ready ? "ready" : "not ready", checker, pod);
        retry(
            () -> {
              if (s.pod(pod) != null) {
                s.setReady(pod, ready);
              }
            });
      } else if (roll < 65 && cluster != null) {
        clusterChaos(group, checker);
      } else if (roll < 65 && s.redis.running() && !redisFrozen) {
        if (random.nextInt(3) == 0) {
          // Hangs for longer than the leases' ttl (3 s): every lease expires by Redis's clock.
          long millis = 4000 + random.nextInt(2000);
          act("hang redis", checker, "(SIGSTOP for " + millis + " ms)");
          checker.disrupted("redis frozen");
          s.redis.freeze();
          redisFrozen = true;
          later(
              millis,
              "thaw redis",
              () -> {
                s.redis.thaw();
                redisFrozen = false;
                checker.disrupted("redis thawed");
              });
          continue;
        }
        boolean keep = random.nextBoolean();
        act("kill redis", checker, keep ? "(will keep data)" : "(will come back empty)");
        checker.disrupted("redis killed");
        if (keep) {
          s.redis.command("SAVE");
        }
        s.redis.kill();
        later(
            1000 + random.nextInt(2000),
            "restart redis",
            () -> {
              s.redis.restart(keep);
              checker.disrupted("redis restarted " + (keep ? "with" : "without") + " data");
            });
      } else if (roll < 75) {
        OperatorProcess op = operators.get(random.nextInt(operators.size()));
        if (op.alive()) {
          act("kill -9", checker, op.name());
          checker.disrupted(op.name() + " killed");
          op.kill();
          later(
              1000 + random.nextInt(3000),
              "start " + op.name(),
              () -> {
                start(op, checker);
              });
        }
      } else if (roll < 90) {
        boolean on = random.nextBoolean();
        double rate = on ? 0.05 + random.nextDouble() * 0.2 : 0;
        int delay = on ? random.nextInt(300) : 0;
        act(
            "api faults",
            checker,
            on ? String.format("errors %.2f delay %d ms", rate, delay) : "off");
        faults.set(rate, delay);
      } else {
        act("switchover", checker, group + " -> " + pod);
        retry(() -> s.annotate(group, BatonNames.SWITCHOVER_ANNOTATION, pod));
      }
    }
  }

  void heal(
      Sandbox s, FaultInjector faults, List<OperatorProcess> operators, InvariantChecker checker) {
    faults.set(0, 0);
    pending.sort((a, b) -> Long.compare(a.dueNanos(), b.dueNanos()));
    pending.forEach(p -> retry(p.action()));
    pending.clear();
    if (cluster != null) {
      reshards.forEach(Disruptions::join);
      for (LocalRedis node : cluster.nodes()) {
        node.thaw();
        if (!node.running()) {
          node.restart(true);
        }
      }
      cluster.awaitHealthy(Duration.ofSeconds(60));
      // A reshard stopped half-way by a dead or hung node leaves its slot open: an operator's
      // `redis-cli --cluster fix` closes it, as here.
      cluster.fixOpenSlots(Duration.ofSeconds(60));
      cluster.awaitHealthy(Duration.ofSeconds(60));
    } else {
      if (redisFrozen) {
        s.redis.thaw();
        redisFrozen = false;
      }
      if (!s.redis.running()) {
        s.redis.restart(true);
      }
    }
    for (OperatorProcess op : operators) {
      if (!op.alive()) {
        start(op, checker);
      }
    }
    for (int g = 0; g < GROUPS; g++) {
      for (int p = 0; p < PODS; p++) {
        String pod = "g" + g + "-" + p;
        String group = "g" + g;
        retry(
            () -> {
              if (s.pod(pod) == null) {
                s.createPod(pod, group);
              }
              s.setReady(pod, true);
            });
      }
    }
    checker.disrupted("healed: faults off, every pod ready, Redis and operators up");
  }

  /**
   * Starts an operator; the checker's bounds count from when it answers ready, not from when it was
   * started. A JVM start on a loaded machine has been seen to take 26 s, and while no operator is
   * up, no group can recover: that is the disruption still going on, not Baton failing to recover.
   */
  private static void start(OperatorProcess op, InvariantChecker checker) {
    op.start();
    checker.disrupted(op.name() + " started");
    Thread watch =
        new Thread(
            () -> {
              long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
              while (op.alive() && System.nanoTime() < deadline) {
                if (op.ready()) {
                  checker.disrupted(op.name() + " ready");
                  return;
                }
                sleep(100);
              }
            },
            "chaos-ready-" + op.name());
    watch.setDaemon(true);
    watch.start();
  }

  /**
   * A Redis Cluster run's Redis chaos: a master killed (its replica is promoted; the node comes
   * back later as a replica), a master hung past the node timeout (failed over while frozen), or a
   * group's slot moved to another master, held half-way for a while.
   */
  private void clusterChaos(String group, InvariantChecker checker) {
    int slot;
    LocalRedis master;
    try {
      slot = cluster.slot(new ElectionKeys(NS + "/" + group).holder());
      master = cluster.masterOf(slot);
    } catch (IllegalStateException e) {
      return; // its master is down and not yet replaced, or the cluster is busy
    }
    if (!master.answering()) {
      return;
    }
    int kind = random.nextInt(3);
    if (kind == 0 && !redisFrozen) {
      boolean keep = random.nextBoolean();
      act("kill master", checker, "of " + group + "'s slot " + slot);
      checker.disrupted("master of slot " + slot + " killed");
      master.kill();
      later(
          3000 + random.nextInt(3000),
          "restart a killed master",
          () -> {
            master.restart(keep);
            checker.disrupted("killed master back as a replica");
          });
    } else if (kind == 1 && !redisFrozen) {
      long millis = 2000 + random.nextInt(3000);
      act("hang master", checker, "of " + group + "'s slot " + slot + " for " + millis + " ms");
      checker.disrupted("master of slot " + slot + " frozen");
      master.freeze();
      redisFrozen = true;
      later(
          millis,
          "thaw master",
          () -> {
            master.thaw();
            redisFrozen = false;
            checker.disrupted("master thawed");
          });
    } else if (reshards.stream().noneMatch(Thread::isAlive)) {
      long pause = random.nextInt(2000);
      LocalRedis target;
      try {
        target = cluster.anotherMaster(slot);
      } catch (IllegalStateException e) {
        return;
      }
      act("reshard", checker, group + "'s slot " + slot + " (half-way for " + pause + " ms)");
      Thread t =
          new Thread(
              () -> {
                try {
                  cluster.moveSlot(slot, target, Duration.ofMillis(pause));
                } catch (RuntimeException e) {
                  // a node died under the move: the cluster repairs it at the end (heal)
                  checker.note("reshard of slot " + slot + " stopped: " + e.getMessage());
                }
              },
              "reshard");
      reshards.add(t);
      t.start();
    }
  }

  /** Waits for the reshards still moving a slot, before the cluster is repaired or closed. */
  void awaitReshards() {
    reshards.forEach(Disruptions::join);
  }

  private static void join(Thread t) {
    try {
      t.join(30_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void act(String kind, InvariantChecker checker, String detail) {
    actions.merge(kind, 1, Integer::sum);
    checker.note("CHAOS " + kind + " " + detail);
  }

  private void later(long millis, String what, Runnable action) {
    pending.add(new Pending(System.nanoTime() + millis * 1_000_000, what, action));
  }

  private void runDue(InvariantChecker checker) {
    long now = System.nanoTime();
    List<Pending> due = pending.stream().filter(p -> p.dueNanos() <= now).toList();
    pending.removeAll(due);
    for (Pending p : due) {
      checker.note("CHAOS " + p.what());
      retry(p.action());
    }
  }

  /** The test's own writes go through the faulty API too: they retry like any client. */
  private static void retry(Runnable action) {
    RuntimeException last = null;
    for (int i = 0; i < 20; i++) {
      try {
        action.run();
        return;
      } catch (RuntimeException e) {
        last = e;
        sleep(100);
      }
    }
    throw last;
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }
}
