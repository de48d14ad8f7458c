package dev.baton.agent.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.agent.config.GateRoute;
import dev.baton.agent.leadership.LeadershipView;
import dev.baton.agent.metrics.AgentMetrics;
import dev.baton.agent.testing.Closing;
import dev.baton.agent.threads.AgentThreads;
import dev.baton.testkit.FreePorts;
import dev.baton.testkit.Timeouts;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.nio.channels.ServerSocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A follower's relay against real leader-only gates on addresses of their own (one port, as pods
 * share port numbers on their own IPs): a connection is never left with a gate that shut before a
 * byte moved, nor with an address that stopped answering once another holder is known, nor longer
 * than its hold.
 */
class RelayTest {

  private static final String A = "127.0.0.31";
  private static final String B = "127.0.0.32";
  private static final String SILENT = "127.0.0.33";

  private final Closing closing = new Closing();
  private final int leaderOnlyPort = FreePorts.any();
  private final int publicPort = FreePorts.any();
  private final AgentMetrics metrics = new AgentMetrics();
  private final AgentThreads threads = closing.add(new AgentThreads());
  private final AtomicReference<LeadershipView> seen = new AtomicReference<>(holder(null, null));
  private final ServerSocketChannel clients = closing.add(listen("127.0.0.1", 0));

  @AfterEach
  void stop() throws Exception {
    closing.close();
  }

  @Test
  void aConnectionWhoseLeadersGateShutBeforeAByteMovedGoesToTheNextHolder() throws Exception {
    ServerSocket appA = app(A);
    ServerSocket appB = app(B);
    Gate gateA = leaderOnlyGate(A, appA);
    Gate gateB = leaderOnlyGate(B, appB);
    Relay relay = relay(Duration.ofSeconds(5));
    gateA.opened(1);
    seen.set(holder(A, 1L));
    try (Socket client = relayed(relay)) {
      Socket atA = appA.accept(); // A's gate took it and reached its app
      // A is demoted before the client says anything; B leads.
      gateB.opened(2);
      seen.set(holder(B, 2L));
      gateA.closed("demoted");
      assertNothingArrives(atA);
      Socket atB = appB.accept();
      atB.setSoTimeout(10_000);
      client.getOutputStream().write(42);
      assertThat(atB.getInputStream().read()).isEqualTo(42);
      atB.getOutputStream().write(43);
      assertThat(client.getInputStream().read()).isEqualTo(43);
    }
    assertThat(metrics.scrape())
        .contains(series("relay_connections_total", "outcome", "retried") + " 1.0")
        .contains(series("relay_connections_total", "outcome", "relayed") + " 2.0")
        .doesNotContain(series("relay_connections_total", "outcome", "refused"));
  }

  @Test
  void aConnectionOnceBytesMovedGoesWithItsLeadersGate() throws Exception {
    ServerSocket appA = app(A);
    Gate gateA = leaderOnlyGate(A, appA);
    Relay relay = relay(Duration.ofSeconds(5));
    gateA.opened(1);
    seen.set(holder(A, 1L));
    try (Socket client = relayed(relay)) {
      Socket atA = appA.accept();
      client.getOutputStream().write(42);
      assertThat(atA.getInputStream().read()).isEqualTo(42);
      gateA.closed("demoted");
      // A's app may have acted on the byte: the connection is A's, and it is reset with A's gate.
      assertThatThrownBy(() -> client.getInputStream().read()).isInstanceOf(SocketException.class);
    }
    assertThat(metrics.scrape())
        .doesNotContain(series("relay_connections_total", "outcome", "retried"));
  }

  @Test
  void bytesSentToAGateThatHandsTheConnectionBackGoToTheNextHolderFirst() throws Exception {
    ServerSocket appB = app(B);
    Gate gateB = leaderOnlyGate(B, appB);
    // A's gate takes the relay, reads the client's first bytes and hands them back unpassed, as a
    // gate that shut before its loop passed them does.
    ServerSocket gateA = listen(A);
    try (Socket client = relayedToA()) {
      client.getOutputStream().write("first".getBytes(StandardCharsets.US_ASCII));
      try (Socket atA = gateA.accept()) {
        accept(atA, RelayHandshake.VERSION + " shop/orders 1 ");
        assertThat(new String(atA.getInputStream().readNBytes(5), StandardCharsets.US_ASCII))
            .isEqualTo("first");
        gateB.opened(2);
        seen.set(holder(B, 2L));
        atA.getOutputStream().write(Gate.HANDED_BACK);
        atA.shutdownOutput();
        assertNothingArrives(atA);
      }
      Socket atB = appB.accept();
      atB.setSoTimeout(10_000);
      client.getOutputStream().write(" second".getBytes(StandardCharsets.US_ASCII));
      assertThat(new String(atB.getInputStream().readNBytes(12), StandardCharsets.US_ASCII))
          .as("the bytes A handed back, then the rest")
          .isEqualTo("first second");
      atB.getOutputStream().write(43);
      assertThat(client.getInputStream().read()).isEqualTo(43);
    }
    assertThat(metrics.scrape())
        .contains(series("relay_connections_total", "outcome", "retried") + " 1.0")
        .doesNotContain(series("relay_connections_total", "outcome", "refused"));
  }

  @Test
  void aGateThatGoesWithoutAWordAfterTheClientsBytesLosesTheConnectionAndItIsCounted()
      throws Exception {
    ServerSocket gateA = listen(A);
    try (Socket client = relayedToA()) {
      try (Socket atA = gateA.accept()) {
        acceptAndPassAByte(atA, RelayHandshake.VERSION + " ", client);
        // Its agent died: whether the byte reached its app nobody can tell, so it is not resent.
        atA.setSoLinger(true, 0);
      }
      client.setSoTimeout((int) Timeouts.WAIT.toMillis());
      assertThatThrownBy(() -> client.getInputStream().read()).isInstanceOf(SocketException.class);
    }
    assertThat(metrics.scrape())
        .contains(series("relay_connections_total", "outcome", "lost") + " 1.0")
        .doesNotContain(series("relay_connections_total", "outcome", "retried"));
  }

  @Test
  void aGateThatSaysAWordNoGateSaysLosesTheConnectionAndItIsCounted() throws Exception {
    ServerSocket gateA = listen(A);
    try (Socket client = relayedToA()) {
      try (Socket atA = gateA.accept()) {
        acceptAndPassAByte(atA, RelayHandshake.VERSION + " ", client);
        // A holder that is not a Baton gate (anyone with the group's Redis user can name itself):
        // its answer is neither "passed" nor "handed back", so the bytes are not sent again.
        atA.getOutputStream().write(0x07);
        client.setSoTimeout((int) Timeouts.WAIT.toMillis());
        assertThatThrownBy(() -> client.getInputStream().read())
            .isInstanceOf(SocketException.class);
      }
    }
    assertThat(metrics.scrape())
        .contains(series("relay_connections_total", "outcome", "lost") + " 1.0")
        .doesNotContain(series("relay_connections_total", "outcome", "retried"));
    assertThat(Forwarding.shown((byte) 0x07)).isEqualTo("byte 7");
    assertThat(Forwarding.shown(Gate.PASSING)).isEqualTo("'" + (char) Gate.PASSING + "'");
  }

  @Test
  void aGateOfVersionTwoIsAskedAgainOnVersionTwoAndThenRelaysAsBefore() throws Exception {
    ServerSocket gateA = listen(A);
    try (Socket client = relayedToA()) {
      // An agent from before the gate's word: it resets a line of version 3.
      try (Socket first = gateA.accept()) {
        assertThat(line(first)).startsWith(RelayHandshake.VERSION + " ");
        first.setSoLinger(true, 0);
      }
      try (Socket atA = gateA.accept()) {
        acceptAndPassAByte(atA, RelayHandshake.VERSION_2 + " shop/orders 1 ", client);
        atA.getOutputStream().write(43);
        assertThat(client.getInputStream().read()).as("no word of passing").isEqualTo(43);
      }
    }
    assertThat(metrics.scrape())
        .contains(series("relay_attempts_total", "result", "silent") + " 1.0")
        .contains(series("relay_attempts_total", "result", "taken") + " 1.0");
  }

  @Test
  void anAddressThatStoppedAnsweringIsLeftOnceAnotherHolderIsKnown() throws Exception {
    // The old holder's address takes connections (its kernel does) but nothing answers there.
    ServerSocket silent = new ServerSocket();
    closing.add(silent);
    silent.bind(new InetSocketAddress(SILENT, leaderOnlyPort));
    silent.setSoTimeout((int) Timeouts.WAIT.toMillis());
    ServerSocket appB = app(B);
    Gate gateB = leaderOnlyGate(B, appB);
    // Tries that would wait longer than the test for an answer: only B's news ends the wait.
    Relay relay = relay(Duration.ofSeconds(60), Duration.ofSeconds(60));
    seen.set(holder(SILENT, 1L));
    try (Socket client = relayed(relay)) {
      closing.add(silent.accept()); // the relay waits for an answer there
      gateB.opened(2);
      seen.set(holder(B, 2L));
      Socket atB = appB.accept();
      atB.setSoTimeout(10_000);
      client.getOutputStream().write(42);
      assertThat(atB.getInputStream().read()).isEqualTo(42);
    }
    assertThat(metrics.scrape())
        .as("given up because B became known")
        .contains(series("relay_attempts_total", "result", "abandoned") + " 1.0")
        .contains(series("relay_attempts_total", "result", "taken") + " 1.0");
  }

  @Test
  void anAppThatClosesEveryConnectionAtOnceIsTriedAgainOnlyAfterAPauseUntilTheHoldEnds()
      throws Exception {
    ServerSocket appA = app(A);
    AtomicInteger accepted = new AtomicInteger();
    Thread closer =
        new Thread(
            () -> {
              while (!appA.isClosed()) {
                try (Socket s = appA.accept()) {
                  accepted.incrementAndGet();
                } catch (IOException e) {
                  // closed, or its accept timed out: look again
                }
              }
            });
    closer.setDaemon(true);
    closer.start();
    Gate gateA = leaderOnlyGate(A, appA);
    gateA.opened(1);
    seen.set(holder(A, 1L));
    Relay relay = relay(Duration.ofMillis(600));
    try (Socket client = relayed(relay)) {
      client.setSoTimeout((int) Timeouts.WAIT.toMillis());
      assertThatThrownBy(() -> client.getInputStream().read()).isInstanceOf(SocketException.class);
    }
    // Handed back each time, and tried again after 5 ms doubling to 100 ms: a handful, not a storm.
    assertThat(accepted.get()).isBetween(2, 20);
    assertThat(metrics.scrape())
        .contains(series("relay_connections_total", "outcome", "refused") + " 1.0");
  }

  @Test
  void aHolderThatRefusedIsTriedAgainSoonThenLessOften() {
    assertThat(Relay.sameAgainAfter(0)).as("never refused").isZero();
    assertThat(Relay.sameAgainAfter(1)).isEqualTo(Duration.ofMillis(5).toNanos());
    assertThat(Relay.sameAgainAfter(2)).isEqualTo(Duration.ofMillis(10).toNanos());
    assertThat(Relay.sameAgainAfter(5)).isEqualTo(Duration.ofMillis(80).toNanos());
    assertThat(Relay.sameAgainAfter(6)).isEqualTo(Duration.ofMillis(100).toNanos());
    assertThat(Relay.sameAgainAfter(1_000)).isEqualTo(Duration.ofMillis(100).toNanos());
  }

  @Test
  void withNoLeadersGateWithinItsHoldAConnectionIsReset() throws Exception {
    Relay relay = relay(Duration.ofMillis(300));
    try (Socket client = relayed(relay)) {
      client.setSoTimeout((int) Timeouts.WAIT.toMillis());
      assertThatThrownBy(() -> client.getInputStream().read()).isInstanceOf(SocketException.class);
    }
    assertThat(metrics.scrape())
        .contains(series("relay_connections_total", "outcome", "refused") + " 1.0");
  }

  /** The peer's end: a clean end or a reset, never a byte. */
  private static void assertNothingArrives(Socket s) throws IOException {
    s.setSoTimeout((int) Timeouts.WAIT.toMillis());
    try {
      assertThat(s.getInputStream().read()).as("nothing arrives at " + s).isEqualTo(-1);
    } catch (SocketException reset) {
      // reset: nothing arrived either
    }
  }

  /** A series as the registry writes it: its labels in the order of their names. */
  private String series(String name, String label, String value) {
    String port = "port=\"" + publicPort + "\"";
    String other = label + "=\"" + value + "\"";
    return AgentMetrics.PREFIX
        + name
        + "{"
        + (label.compareTo("port") < 0 ? other + "," + port : port + "," + other)
        + "}";
  }

  /**
   * A client connection given to a relay with a hold of 5 s that sees A as the holder at term 1,
   * A's gate being one the test plays itself on {@link #listen}.
   */
  private Socket relayedToA() throws IOException {
    Relay relay = relay(Duration.ofSeconds(5));
    seen.set(holder(A, 1L));
    return relayed(relay);
  }

  /** Plays a gate: the relay's preamble read and checked, then the relay taken. */
  private static void accept(Socket atGate, String preamble) throws IOException {
    assertThat(line(atGate)).startsWith(preamble);
    atGate.getOutputStream().write(Gate.ACCEPTED);
  }

  /** Plays a gate that takes the relay, then sees the client's byte 42 arrive through it. */
  private static void acceptAndPassAByte(Socket atGate, String preamble, Socket client)
      throws IOException {
    accept(atGate, preamble);
    client.getOutputStream().write(42);
    assertThat(atGate.getInputStream().read()).isEqualTo(42);
  }

  /** A client connection given to the relay, as a shut public gate gives it. */
  private Socket relayed(Relay relay) throws IOException {
    Socket client = new Socket(InetAddress.getLoopbackAddress(), clients.socket().getLocalPort());
    client.setSoTimeout(10_000);
    relay.take(clients.accept());
    return client;
  }

  private Relay relay(Duration hold) {
    return relay(hold, Duration.ofSeconds(5));
  }

  private Relay relay(Duration hold, Duration tryWithin) {
    RelayHandshake handshake = new RelayHandshake("shop", leaderOnlyPort, null);
    handshake.groupFrom(() -> "orders");
    Relay relay =
        new Relay(
            new Relay.Route(
                publicPort,
                leaderOnlyPort,
                handshake,
                null,
                hold,
                new Relay.Tries(tryWithin, tryWithin)),
            seen::get,
            metrics,
            threads);
    closing.add(relay::close);
    return relay;
  }

  private Gate leaderOnlyGate(String ip, ServerSocket app) {
    RelayHandshake handshake = new RelayHandshake("shop", leaderOnlyPort, null);
    handshake.groupFrom(() -> "orders");
    Gate g =
        new Gate(
            new GateRoute(leaderOnlyPort, ip, app.getLocalPort()),
            Gate.Listening.on(ip, handshake),
            new AgentMetrics(),
            threads);
    closing.add(g::close);
    return g;
  }

  /** A listener on {@code ip}'s leader-only port, for a gate the test plays itself. */
  private ServerSocket listen(String ip) throws IOException {
    ServerSocket s = new ServerSocket();
    closing.add(s);
    s.bind(new InetSocketAddress(ip, leaderOnlyPort));
    s.setSoTimeout((int) Timeouts.WAIT.toMillis());
    return s;
  }

  /** A relay's preamble as a gate reads it, without its newline. */
  private static String line(Socket s) throws IOException {
    s.setSoTimeout((int) Timeouts.WAIT.toMillis());
    StringBuilder b = new StringBuilder();
    for (int c = s.getInputStream().read(); c != '\n'; c = s.getInputStream().read()) {
      assertThat(c).as("the preamble ends with a newline").isNotNegative();
      b.append((char) c);
    }
    return b.toString();
  }

  private ServerSocket app(String ip) throws IOException {
    ServerSocket s = new ServerSocket(0, 50, InetAddress.getByName(ip));
    s.setSoTimeout((int) Timeouts.WAIT.toMillis());
    closing.add(s);
    return s;
  }

  private static LeadershipView holder(String ip, Long term) {
    return new LeadershipView(
        false, null, "follower", "orders", null, ip == null ? null : "p-" + ip, term, ip);
  }

  private static ServerSocketChannel listen(String ip, int port) {
    try {
      ServerSocketChannel s = ServerSocketChannel.open();
      s.bind(new InetSocketAddress(ip, port));
      return s;
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
