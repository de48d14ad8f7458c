package dev.baton.agent.gate;

import static dev.baton.agent.testing.AgentSandbox.ROLE;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.agent.testing.AgentSandbox;
import dev.baton.testkit.ByteRecorder;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The gate against the real operator: forwarding only on the leader, every connection cut when it
 * stops leading, and the next leader's gate open only once the old one is closed, yet long before
 * {@code confirmWithin} when the old agent lets go.
 */
class GateIT {

  private static final Duration CONFIRM_WITHIN = Duration.ofSeconds(3);

  private AgentSandbox sandbox;

  @AfterEach
  void stop() {
    if (sandbox != null) {
      sandbox.close();
    }
  }

  private List<String> startWithAgents(int pods, boolean redis) {
    sandbox = new AgentSandbox().pods(pods).startOperator();
    List<String> names =
        sandbox.cluster.pods().stream().map(p -> p.getMetadata().getName()).toList();
    for (String pod : names) {
      sandbox.startAgent(pod, CONFIRM_WITHIN, redis);
    }
    sandbox.group();
    return names;
  }

  @Test
  void theLeadersGateForwardsAndAFollowersGateRefuses() throws IOException {
    startWithAgents(2, true);
    String leader = sandbox.awaitLeadingAgent();
    String follower =
        sandbox.cluster.roles(ROLE).keySet().stream()
            .filter(p -> !p.equals(leader))
            .findFirst()
            .orElseThrow();

    try (Socket s = sandbox.connectThroughGate(leader)) {
      assertEchoes(s, "hello through the gate");
    }
    try (Socket s = sandbox.connectThroughGate(follower)) {
      assertCut(s);
    }
    assertThat(sandbox.agent(follower).leadership().view().leader()).isFalse();
  }

  @Test
  void deletingTheLeaderCutsItsConnectionsAndTheNextGateOpensWellBeforeConfirmWithin()
      throws IOException {
    startWithAgents(3, true);
    String old = sandbox.awaitLeadingAgent();
    try (Socket held = sandbox.connectThroughGate(old)) {
      assertEchoes(held, "before");
      long deleted = System.nanoTime();
      sandbox.cluster.deletePod(old);
      assertCut(held);
      assertThat(elapsedMillis(deleted)).isLessThan(2000);
    }
    String next = sandbox.awaitLeaderOtherThan(old);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> sandbox.agent(next).leadership().view().leader());
    try (Socket s = sandbox.connectThroughGate(next)) {
      assertEchoes(s, "after");
    }
    var oldSpan =
        sandbox.recorder.spans().stream()
            .filter(s -> s.pod().equals(old))
            .findFirst()
            .orElseThrow();
    long openedAfterOldClosed =
        sandbox.recorder.lastOpened(next).orElseThrow() - oldSpan.closedAt();
    assertThat(openedAfterOldClosed)
        .as("the new gate opened after the old one closed")
        .isPositive();
    assertThat(TimeUnit.NANOSECONDS.toMillis(openedAfterOldClosed))
        .as("the old agent let go, so no wait for confirmWithin")
        .isLessThan(CONFIRM_WITHIN.toMillis() / 2);
    assertThat(sandbox.recorder.overlaps()).isEmpty();
  }

  @Test
  void aLeaderTurnedNotReadyIsCutAndNoTwoGatesAreEverOpenOverAStringOfFailovers()
      throws IOException {
    startWithAgents(3, true);
    String leader = sandbox.awaitLeadingAgent();
    for (int i = 0; i < 5; i++) {
      try (Socket held = sandbox.connectThroughGate(leader)) {
        assertEchoes(held, "round " + i);
        sandbox.cluster.setReady(leader, false);
        assertCut(held);
      }
      String next = sandbox.awaitLeaderOtherThan(leader);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> sandbox.agent(next).leadership().view().leader());
      sandbox.cluster.setReady(leader, true);
      leader = next;
    }
    assertThat(sandbox.recorder.spans()).hasSizeGreaterThanOrEqualTo(6);
    assertThat(sandbox.recorder.overlaps()).as(sandbox.recorder.spans().toString()).isEmpty();
  }

  @Test
  void stoppingTheLeadersAgentCutsItsConnectionsAndLetsGoAtOnce() throws IOException {
    startWithAgents(2, true);
    String leader = sandbox.awaitLeadingAgent();
    String other = leader.equals("worker-0") ? "worker-1" : "worker-0";
    long stopped;
    try (Socket held = sandbox.connectThroughGate(leader)) {
      assertEchoes(held, "before");
      stopped = System.nanoTime();
      sandbox.stopAgent(leader); // what SIGTERM does
      assertCut(held);
    }
    // Its pod goes too (a rolling update): the next gate need not wait for the key to run out.
    sandbox.cluster.deletePod(leader);
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> sandbox.agent(other).leadership().view().leader());
    assertThat(
            TimeUnit.NANOSECONDS.toMillis(
                sandbox.recorder.lastOpened(other).orElseThrow() - stopped))
        .as("the stopped agent let go of its key")
        .isLessThan(CONFIRM_WITHIN.toMillis() / 2);
  }

  @Test
  void withoutRedisAGateOpensOnlyOnceThePromotionWasSeenForConfirmWithin() throws IOException {
    startWithAgents(2, false);
    String old = sandbox.awaitLeadingAgent();
    long notReady = System.nanoTime();
    sandbox.cluster.setReady(old, false);
    String next = sandbox.awaitLeaderOtherThan(old);
    await()
        .atMost(CONFIRM_WITHIN.plusSeconds(5))
        .until(() -> sandbox.agent(next).leadership().view().leader());
    long openedAfter = sandbox.recorder.lastOpened(next).orElseThrow() - notReady;
    assertThat(TimeUnit.NANOSECONDS.toMillis(openedAfter))
        .isGreaterThanOrEqualTo(CONFIRM_WITHIN.toMillis());
    try (Socket s = sandbox.connectThroughGate(next)) {
      assertEchoes(s, "after");
    }
    assertThat(sandbox.recorder.overlaps()).isEmpty();
  }

  /**
   * A stamped frame ({@link ByteRecorder#frame}) goes through and comes back: the application's
   * recorder counts it, so every round trip of these tests is held to the byte check too.
   */
  static void assertEchoes(Socket s, String what) throws IOException {
    byte[] sent = ByteRecorder.frame();
    s.getOutputStream().write(sent);
    s.getOutputStream().flush();
    byte[] got = s.getInputStream().readNBytes(sent.length);
    assertThat(got).as(what).isEqualTo(sent);
  }

  /** The connection is reset (RST, as promised: not a clean end) before the 5 s read timeout. */
  static void assertCut(Socket s) throws IOException {
    InputStream in = s.getInputStream();
    try {
      int n;
      do {
        n = in.read();
      } while (n >= 0);
    } catch (SocketTimeoutException e) {
      throw new AssertionError("the connection was not cut within 5 s", e);
    } catch (SocketException e) {
      assertThat(e.getMessage()).containsIgnoringCase("reset");
      return;
    }
    throw new AssertionError("the connection ended cleanly: a cut must reset it");
  }

  private static long elapsedMillis(long since) {
    return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since);
  }
}
