package dev.baton.bench.agent;

import dev.baton.bench.harness.Waits;
import dev.baton.testkit.Sandbox;
import dev.baton.testkit.StampedWriter;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/** One failover of the agent benchmark, from a steady leader back to a steady group. */
final class FailoverTrial {

  /**
   * What one trial measured; a cut of -1 when the old agent was killed first (not measured). The
   * writer: a pooled client writing stamped frames through the old gate, whose late frames the
   * fleet's {@link dev.baton.testkit.ByteRecorder} counts.
   */
  record Outcome(double cutMillis, double openMillis, boolean directCut, boolean writerCut) {
    @Override
    public String toString() {
      return String.format(
          "cut %.1f ms, open %.1f ms%s%s",
          cutMillis,
          openMillis,
          directCut ? ", direct cut" : "",
          writerCut ? "" : ", writer not cut");
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
    String leader = fleet.awaitOpenLeader();
    try (Socket gate = new Socket(InetAddress.getLoopbackAddress(), fleet.gatePort(leader));
        Socket direct = new Socket(InetAddress.getLoopbackAddress(), fleet.appPort(leader));
        StampedWriter writer = fleet.writerThrough(leader)) {
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
      long opened = fleet.awaitGateOtherThan(leader, Duration.ofSeconds(15));
      if (opened < 0) {
        throw new IllegalStateException("no gate opened within 15 s after " + kind);
      }
      long cutAt = ended.get(15, TimeUnit.SECONDS);
      if (cutAt < 0 && !killFirst) {
        throw new IllegalStateException("the old gate's connection was not cut within 10 s");
      }
      boolean directCut = !pingQuietly(direct);
      double cut = killFirst ? -1 : AgentBench.millisSince(t0, cutAt);
      // The writer's reader sees the reset a moment after the measured connection's did.
      boolean writerCut = Waits.until(writer::broken, Duration.ofSeconds(2), Duration.ofMillis(5));
      restore(leader);
      return new Outcome(cut, AgentBench.millisSince(t0, opened), directCut, writerCut);
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
