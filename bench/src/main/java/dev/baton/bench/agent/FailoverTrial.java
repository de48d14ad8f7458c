package dev.baton.bench.agent;

import dev.baton.testkit.Sandbox;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/** One failover of the agent benchmark, from a steady leader back to a steady group. */
final class FailoverTrial {

  /** What one trial measured; a cut of -1 when the old agent was killed first (not measured). */
  record Outcome(double cutMillis, double openMillis, boolean directCut) {
    @Override
    public String toString() {
      return String.format(
          "cut %.1f ms, open %.1f ms%s", cutMillis, openMillis, directCut ? ", direct cut" : "");
    }
  }

  private final Sandbox cluster;
  private final AgentFleet fleet;
  private final AgentBench.Kind kind;
  private boolean killFirst;

  FailoverTrial(Sandbox cluster, AgentFleet fleet, AgentBench.Kind kind) {
    this.cluster = cluster;
    this.fleet = fleet;
    this.kind = kind;
  }

  FailoverTrial killFirst() {
    killFirst = true;
    return this;
  }

  Outcome run() throws Exception {
    AgentBench.await(
        () -> {
          List<String> l = cluster.leaders(AgentBench.ROLE);
          return l.size() == 1
              && fleet.leads(l.get(0))
              && AgentFleet.echoes(fleet.gatePort(l.get(0)));
        },
        Duration.ofSeconds(20),
        "a leader with an open gate");
    String leader = cluster.leaders(AgentBench.ROLE).get(0);
    try (Socket gate = new Socket(InetAddress.getLoopbackAddress(), fleet.gatePort(leader));
        Socket direct = new Socket(InetAddress.getLoopbackAddress(), fleet.appPort(leader))) {
      gate.setTcpNoDelay(true);
      ping(gate);
      ping(direct);
      if (killFirst) {
        fleet.kill(leader);
      }
      CompletableFuture<Long> ended = AgentBench.endOf(gate);
      long t0 = System.nanoTime();
      if (kind == AgentBench.Kind.DELETED) {
        cluster.deletePod(leader);
      } else {
        cluster.setReady(leader, false);
      }
      long opened = -1;
      long deadline = t0 + TimeUnit.SECONDS.toNanos(15);
      while (opened < 0 && System.nanoTime() < deadline) {
        for (int i = 0; i < AgentBench.PODS; i++) {
          String other = AgentBench.pod(i);
          if (!other.equals(leader) && AgentFleet.echoes(fleet.gatePort(other))) {
            opened = System.nanoTime();
            break;
          }
        }
        if (opened < 0) {
          LockSupport.parkNanos(2_000_000);
        }
      }
      if (opened < 0) {
        throw new IllegalStateException("no gate opened within 15 s after " + kind);
      }
      long cutAt = ended.get(15, TimeUnit.SECONDS);
      if (cutAt < 0 && !killFirst) {
        throw new IllegalStateException("the old gate's connection was not cut within 10 s");
      }
      boolean directCut = !pingQuietly(direct);
      double cut = killFirst ? -1 : AgentBench.millisSince(t0, cutAt);
      restore(leader);
      return new Outcome(cut, AgentBench.millisSince(t0, opened), directCut);
    }
  }

  private void restore(String leader) {
    if (kind == AgentBench.Kind.DELETED) {
      cluster.createPod(leader, AgentBench.APP);
    } else {
      cluster.setReady(leader, true);
    }
    if (killFirst) {
      fleet.start(leader);
    }
    AgentBench.await(
        () -> "follower".equals(cluster.roles(AgentBench.ROLE).get(leader)) && fleet.ready(leader),
        Duration.ofSeconds(20),
        leader + " back as a follower");
  }

  private static void ping(Socket s) throws java.io.IOException {
    s.setSoTimeout(2000);
    s.getOutputStream().write(1);
    if (s.getInputStream().read() != 1) {
      throw new IllegalStateException("no echo");
    }
  }

  private static boolean pingQuietly(Socket s) {
    try {
      ping(s);
      return true;
    } catch (Exception e) {
      return false;
    }
  }
}
