package dev.baton.agent.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.agent.config.GateRoute;
import dev.baton.agent.metrics.AgentMetrics;
import dev.baton.agent.threads.AgentThreads;
import dev.baton.testkit.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.time.Duration;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The gate alone, without leadership: forwarding, the cut, refusal, and the target's absence. */
class GateTest {

  private final ServerSocket app = newServer();
  private final AgentMetrics metrics = new AgentMetrics();
  private final AgentThreads threads = new AgentThreads();
  private final Gate gate =
      new Gate(new GateRoute(FreePorts.any(), "127.0.0.1", app.getLocalPort()), metrics, threads);

  @AfterEach
  void stop() throws IOException {
    gate.close();
    app.close();
    threads.close();
  }

  @Test
  void forwardsMegabytesBothWaysUnchangedAndPassesAHalfCloseOn() throws Exception {
    gate.opened(1);
    byte[] up = randomBytes(4 << 20, 1);
    byte[] down = randomBytes(3 << 20, 2);
    try (Socket client = connect()) {
      Socket server = app.accept();
      // Both sides write everything before reading: the gate must buffer and apply back-pressure
      // without losing or reordering a byte.
      CompletableFuture<byte[]> atServer = CompletableFuture.supplyAsync(() -> readAll(server));
      CompletableFuture<byte[]> atClient = CompletableFuture.supplyAsync(() -> readAll(client));
      CompletableFuture<Void> serverWrites =
          CompletableFuture.runAsync(
              () -> {
                try {
                  server.getOutputStream().write(down);
                  server.shutdownOutput();
                } catch (IOException e) {
                  throw new IllegalStateException(e);
                }
              });
      client.getOutputStream().write(up);
      client.shutdownOutput();
      assertThat(atServer.get()).isEqualTo(up);
      assertThat(atClient.get()).isEqualTo(down);
      serverWrites.get();
      server.close();
    }
  }

  @Test
  void aCutResetsBothSidesBeforeItReturnsAndNewConnectionsAreRefusedUntilItOpensAgain()
      throws Exception {
    gate.opened(1);
    Socket[] clients = new Socket[10];
    Socket[] servers = new Socket[10];
    for (int i = 0; i < clients.length; i++) {
      clients[i] = connect();
      servers[i] = app.accept();
      clients[i].getOutputStream().write(i);
      assertThat(servers[i].getInputStream().read()).isEqualTo(i);
    }

    gate.closed("test");

    for (int i = 0; i < clients.length; i++) {
      Socket client = clients[i];
      Socket server = servers[i];
      assertThatThrownBy(() -> client.getInputStream().read())
          .isInstanceOf(SocketException.class)
          .hasMessageContaining("reset");
      assertThatThrownBy(() -> server.getInputStream().read())
          .isInstanceOf(SocketException.class)
          .hasMessageContaining("reset");
    }
    try (Socket refused = connect()) {
      assertThatThrownBy(() -> refused.getInputStream().read())
          .isInstanceOf(SocketException.class)
          .hasMessageContaining("reset");
    }
    assertThat(metrics.scrape())
        .contains("gate_cut_total{port=\"" + gate.port() + "\"} 10.0")
        .contains("gate_refused_total{port=\"" + gate.port() + "\"} 1.0")
        .contains("gate_connections_open{port=\"" + gate.port() + "\"} 0.0");

    gate.opened(2);
    try (Socket client = connect()) {
      Socket server = app.accept();
      client.getOutputStream().write(7);
      assertThat(server.getInputStream().read()).isEqualTo(7);
      server.close();
    }
  }

  @Test
  void pastItsDeadlineAGateForwardsNoByteAndTakesNoConnectionThoughNobodyClosedIt()
      throws Exception {
    long deadline = System.nanoTime() + Duration.ofMillis(300).toNanos();
    gate.openUntil(deadline);
    gate.opened(1);
    try (Socket client = connect();
        Socket server = app.accept()) {
      server.setSoTimeout(10_000);
      client.getOutputStream().write(1);
      assertThat(server.getInputStream().read()).isEqualTo(1);
      // As a paused agent wakes: the deadline passed, and the leadership's timer has not run.
      while (System.nanoTime() - deadline <= 0) {
        Thread.sleep(20);
      }
      client.getOutputStream().write(2);
      assertThat(readOrEnd(server)).as("the byte written past the deadline").isEqualTo(-1);
    }
    try (Socket late = connect()) {
      assertThat(readOrEnd(late)).as("a connection accepted past the deadline").isEqualTo(-1);
    }
  }

  private static int readOrEnd(Socket s) throws IOException {
    try {
      return s.getInputStream().read();
    } catch (SocketException e) {
      return -1;
    }
  }

  @Test
  void aTargetThatIsNotThereResetsTheClient() throws Exception {
    app.close();
    gate.opened(1);
    try (Socket client = connect()) {
      assertThatThrownBy(() -> client.getInputStream().read())
          .isInstanceOf(SocketException.class)
          .hasMessageContaining("reset");
    }
  }

  @Test
  void aClosedGateFreesItsPort() throws Exception {
    int port = gate.port();
    gate.close();
    try (ServerSocket again = new ServerSocket(port)) {
      assertThat(again.getLocalPort()).isEqualTo(port);
    }
  }

  @Test
  void aLeaderOnlyGateTakesOnlyARelaysPreambleAndAnswersBeforeAnyClientByte() throws Exception {
    RelayHandshake handshake = handshake("orders", "s3cret");
    byte[] preamble = handshake.say(1);
    try (Gate leaderOnly = leaderOnlyGate(handshake)) {
      // Shut: the preamble is read, and the relay refused.
      assertRefused(leaderOnly, preamble);
      // The same of version 2: reset without a word, as agents before the word did.
      assertReset(leaderOnly, handshake.say(1, RelayHandshake.VERSION_2));
      leaderOnly.opened(1);
      // Open, but not a relay: reset.
      assertReset(leaderOnly, "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes());
      // Open, and a relay: answered, then forwarded byte for byte.
      try (Socket s = taken(leaderOnly, preamble)) {
        Socket server = app.accept();
        s.getOutputStream().write(42);
        assertThat(server.getInputStream().read())
            .as("the preamble is not passed on")
            .isEqualTo(42);
        assertThat(s.getInputStream().read()).as("said before it passed").isEqualTo(Gate.PASSING);
        server.getOutputStream().write(43);
        assertThat(s.getInputStream().read()).isEqualTo(43);
        server.close();
      }
    }
  }

  @Test
  void aRelayOfVersionTwoIsToldNothingOfPassing() throws Exception {
    RelayHandshake handshake = handshake("orders", null);
    try (Gate leaderOnly = leaderOnlyGate(handshake);
        Socket s = takenOnceOpened(leaderOnly, handshake.say(1, RelayHandshake.VERSION_2));
        Socket server = app.accept()) {
      server.getOutputStream().write(43);
      assertThat(s.getInputStream().read()).as("the app's byte, nothing before").isEqualTo(43);
    }
  }

  @Test
  void aLeaderOnlyGateThatShutsBeforeARelaysBytesPassedHandsItBackWithACleanEnd() throws Exception {
    RelayHandshake handshake = handshake("orders", null);
    // An app whose accept queue is full: the gate's connection to it waits, and the relay's
    // bytes wait unread at the gate.
    try (FullListener full = new FullListener();
        Gate leaderOnly = leaderOnlyGate(handshake, full.port());
        Socket s = takenOnceOpened(leaderOnly, handshake.say(1))) {
      s.getOutputStream().write(42);
      leaderOnly.closed("demoted");
      assertThat(s.getInputStream().read()).as("not passed").isEqualTo(Gate.HANDED_BACK);
      assertThat(s.getInputStream().read()).as("a clean end, no reset").isEqualTo(-1);
    }
  }

  @Test
  void aLeaderOnlyGateWhoseAppEndsBeforeAByteHandsTheRelayBack() throws Exception {
    RelayHandshake handshake = handshake("orders", null);
    try (Gate leaderOnly = leaderOnlyGate(handshake);
        Socket s = takenOnceOpened(leaderOnly, handshake.say(1))) {
      app.accept().close();
      assertThat(s.getInputStream().read()).isEqualTo(Gate.HANDED_BACK);
      assertThat(s.getInputStream().read()).isEqualTo(-1);
    }
  }

  @Test
  void aLeaderOnlyGateRefusesAnotherGroupsRelayAndAnOlderTerms() throws Exception {
    RelayHandshake own = handshake("orders", null);
    RelayHandshake other = handshake("payments", null);
    try (Gate leaderOnly = leaderOnlyGate(own)) {
      leaderOnly.opened(5);
      assertRefused(leaderOnly, other.say(5));
      assertRefused(leaderOnly, own.say(4));
      try (Socket s = taken(leaderOnly, own.say(5))) {
        app.accept().close();
      }
    }
  }

  @Test
  void aTrickledPreambleIsResetAtItsDeadline() throws Exception {
    RelayHandshake own = handshake("orders", null);
    try (Gate leaderOnly = leaderOnlyGate(own)) {
      leaderOnly.opened(1);
      byte[] preamble = own.say(1);
      try (Socket s = connect(leaderOnly)) {
        long start = System.nanoTime();
        // One byte every 300 ms: each read returns in time, the whole line does not.
        assertThatThrownBy(
                () -> {
                  for (byte b : preamble) {
                    s.getOutputStream().write(b);
                    Thread.sleep(300);
                  }
                  s.getInputStream().read();
                })
            .isInstanceOf(SocketException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start))
            .as("reset after the deadline, long before the line ended")
            .isLessThan(Duration.ofSeconds(8));
      }
    }
  }

  /** A relay's handshake for the leader-only port 7001 of {@code group} in namespace shop. */
  private static RelayHandshake handshake(String group, String secret) {
    RelayHandshake h = new RelayHandshake("shop", 7001, secret);
    h.groupFrom(() -> group);
    return h;
  }

  private Gate leaderOnlyGate(RelayHandshake handshake) {
    return leaderOnlyGate(handshake, app.getLocalPort());
  }

  private Gate leaderOnlyGate(RelayHandshake handshake, int appPort) {
    return new Gate(
        new GateRoute(FreePorts.any(), "127.0.0.1", appPort),
        Gate.Listening.on("127.0.0.1", handshake),
        metrics,
        threads);
  }

  /** A relay's connection to an open gate: {@code said}, and the gate's word that it took it. */
  private static Socket taken(Gate leaderOnly, byte[] said) throws IOException {
    Socket s = connect(leaderOnly);
    s.getOutputStream().write(said);
    assertThat(s.getInputStream().read()).isEqualTo(Gate.ACCEPTED);
    return s;
  }

  /**
   * A relay's connection made while the gate is shut, the gate then opened at term 1, and only then
   * {@code said}, and the gate's word that it took it.
   */
  private static Socket takenOnceOpened(Gate leaderOnly, byte[] said) throws IOException {
    Socket s = connect(leaderOnly);
    leaderOnly.opened(1);
    s.getOutputStream().write(said);
    assertThat(s.getInputStream().read()).isEqualTo(Gate.ACCEPTED);
    return s;
  }

  /** A relay of version 3 refused: the word, then the end or a reset. */
  private static void assertRefused(Gate leaderOnly, byte[] said) throws IOException {
    try (Socket s = connect(leaderOnly)) {
      s.getOutputStream().write(said);
      assertThat(s.getInputStream().read()).isEqualTo(Gate.REFUSED);
      try {
        assertThat(s.getInputStream().read()).isEqualTo(-1);
      } catch (SocketException reset) {
        // the reset after the word
      }
    }
  }

  private static void assertReset(Gate leaderOnly, byte[] said) throws IOException {
    try (Socket s = connect(leaderOnly)) {
      s.getOutputStream().write(said);
      assertThatThrownBy(() -> s.getInputStream().read()).isInstanceOf(SocketException.class);
    }
  }

  private Socket connect() throws IOException {
    return connect(gate);
  }

  private static Socket connect(Gate g) throws IOException {
    Socket s = new Socket(InetAddress.getLoopbackAddress(), g.port());
    s.setSoTimeout(10_000);
    return s;
  }

  private static byte[] readAll(Socket s) {
    try {
      s.setSoTimeout(10_000);
      InputStream in = s.getInputStream();
      return in.readAllBytes();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  private static byte[] randomBytes(int n, long seed) {
    byte[] b = new byte[n];
    new Random(seed).nextBytes(b);
    return b;
  }

  private static ServerSocket newServer() {
    try {
      return new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
