package dev.baton.agent.gate;

import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.agent.config.GateRoute;
import dev.baton.agent.metrics.AgentMetrics;
import dev.baton.agent.threads.AgentThreads;
import dev.baton.testkit.FreePorts;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What a gate holds at most against hostile clients: connections, buffers for clients that stop
 * reading, and relays' preambles from one address.
 */
class GateBoundsTest {

  private final AgentMetrics metrics = new AgentMetrics();
  private final AgentThreads threads = new AgentThreads();
  private final ExecutorService appThreads = Executors.newCachedThreadPool();
  private final List<Socket> clients = new ArrayList<>();
  private final ServerSocket app;
  private Gate gate;

  GateBoundsTest() throws IOException {
    app = new ServerSocket(0, 200, InetAddress.getLoopbackAddress());
    appThreads.execute(this::serve);
  }

  @AfterEach
  void stop() throws IOException {
    for (Socket c : clients) {
      c.close();
    }
    if (gate != null) {
      gate.close();
    }
    app.close();
    appThreads.shutdownNow();
    threads.close();
  }

  /** The app: echoes, except that a client whose first byte is 'F' gets 16 MiB at once. */
  private void serve() {
    while (!app.isClosed()) {
      try {
        Socket s = app.accept();
        appThreads.execute(
            () -> {
              try (s;
                  InputStream in = s.getInputStream();
                  OutputStream out = s.getOutputStream()) {
                int b;
                while ((b = in.read()) >= 0) {
                  if (b == 'F') {
                    out.write(new byte[16 << 20]);
                  } else {
                    out.write(b);
                  }
                }
              } catch (IOException e) {
                // reset by the gate, or the test ended
              }
            });
      } catch (IOException e) {
        return;
      }
    }
  }

  private Gate gate(GateLimits limits) {
    gate =
        new Gate(
            new GateRoute(FreePorts.any(), "127.0.0.1", app.getLocalPort()),
            Gate.Listening.on(null, null).bounded(1, limits),
            metrics,
            threads);
    gate.opened(1);
    return gate;
  }

  private Socket connect(int receiveBuffer) throws IOException {
    Socket s = new Socket();
    if (receiveBuffer > 0) {
      s.setReceiveBufferSize(receiveBuffer);
    }
    s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), gate.port()));
    s.setSoTimeout(10_000);
    clients.add(s);
    return s;
  }

  private static boolean echoes(Socket s) throws IOException {
    s.getOutputStream().write(7);
    return s.getInputStream().read() == 7;
  }

  private int open() {
    String m = "gate_connections_open{port=\"" + gate.port() + "\"} ";
    String scrape = metrics.scrape();
    int at = scrape.indexOf(m);
    return at < 0 ? 0 : (int) Double.parseDouble(scrape.substring(at + m.length()).split("\n")[0]);
  }

  @Test
  void atItsConnectionBoundAGateRefusesTheNextAndTakesAnotherOnceOneEnded() throws Exception {
    gate(new GateLimits(2, 64, 30_000_000_000L));
    Socket first = connect(0);
    Socket second = connect(0);
    assertThat(echoes(first)).isTrue();
    assertThat(echoes(second)).isTrue();

    Socket third = connect(0);
    assertThatThrownBy(() -> echoes(third))
        .as("over the bound: reset")
        .isInstanceOf(SocketException.class);
    assertThat(metrics.scrape())
        .contains("gate_bounded_total{bound=\"connections\",port=\"" + gate.port() + "\"} 1.0");

    first.close();
    await().atMost(WAIT).until(() -> open() == 1);
    assertThat(echoes(connect(0))).as("room again once one ended").isTrue();
    assertThat(echoes(second)).isTrue();
  }

  @Test
  void clientsThatStopReadingHoldNoMoreBuffersThanTheLoopsBoundAndOthersAreServedMeanwhile()
      throws Exception {
    gate(new GateLimits(100, 1, 30_000_000_000L));
    // Each asks for 16 MiB and reads nothing: each needs a buffer at the gate once the sockets'
    // own are full. One may keep it; the other is reset.
    for (int i = 0; i < 2; i++) {
      connect(4096).getOutputStream().write('F');
    }
    await().atMost(WAIT).until(() -> open() == 1);
    assertThat(metrics.scrape())
        .contains("gate_bounded_total{bound=\"buffers\",port=\"" + gate.port() + "\"} 1.0");
    assertThat(echoes(connect(0))).as("a client that reads is served").isTrue();
  }

  @Test
  void aClientThatStopsReadingIsResetOnceItsBytesHaveNotMovedForTheStallBound() throws Exception {
    gate(new GateLimits(100, 4, 1_000_000_000L));
    Socket stalled = connect(4096);
    stalled.getOutputStream().write('F');
    await().atMost(WAIT).until(() -> open() == 0);
    assertThat(metrics.scrape())
        .contains("gate_bounded_total{bound=\"stalled\",port=\"" + gate.port() + "\"} 1.0");
    assertThat(echoes(connect(0))).isTrue();
  }

  @Test
  void slowPreamblesHoldNoThreadAndARelaysPreambleIsTakenAmongThem() throws Exception {
    RelayHandshake own = new RelayHandshake("shop", 7001, null);
    own.groupFrom(() -> "orders");
    gate =
        new Gate(
            new GateRoute(FreePorts.any(), "127.0.0.1", app.getLocalPort()),
            Gate.Listening.on(null, own),
            metrics,
            threads);
    gate.opened(1);
    // Silent and trickling connections, more than any pool of handshake threads would hold.
    for (int i = 0; i < 300; i++) {
      connect(0).getOutputStream().write('B');
    }
    Socket relay = connect(0);
    relay.getOutputStream().write(own.say(1));
    assertThat(relay.getInputStream().read()).as("the relay is taken").isEqualTo(Gate.ACCEPTED);
    relay.getOutputStream().write(7);
    assertThat(relay.getInputStream().read()).as("its byte passes").isEqualTo(Gate.PASSING);
    assertThat(relay.getInputStream().read()).as("and comes back").isEqualTo(7);

    Socket silent = clients.get(0);
    assertThatThrownBy(() -> silent.getInputStream().read())
        .as("reset at its preamble's deadline")
        .isInstanceOf(SocketException.class);
  }
}
