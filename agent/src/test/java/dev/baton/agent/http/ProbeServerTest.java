package dev.baton.agent.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.agent.threads.AgentThreads;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The probes' port against hostile clients: a kubelet's probe is answered while others hold
 * connections open, trickle requests or flood the port from many addresses.
 */
class ProbeServerTest {

  private final AgentThreads threads = new AgentThreads();
  private final ProbeServer probes =
      new ProbeServer(
          new InetSocketAddress("127.0.0.1", 0),
          path -> {
            if (path.equals("/boom")) {
              throw new IllegalStateException("a probe that fails");
            }
            return path.equals("/readyz")
                ? new ProbeServer.Answer(200, "text/plain", "ok\n".getBytes())
                : new ProbeServer.Answer(404, "text/plain", "no\n".getBytes());
          },
          threads);
  private final List<Socket> hostile = new ArrayList<>();

  @AfterEach
  void stop() throws IOException {
    for (Socket s : hostile) {
      s.close();
    }
    probes.close();
    threads.close();
  }

  /** A kubelet's probe from {@code from}: the whole answer, or "" when the connection closed. */
  private String probe(String from, String path) throws IOException {
    try (Socket s = new Socket()) {
      s.bind(new InetSocketAddress(from, 0));
      s.connect(new InetSocketAddress("127.0.0.1", probes.port()));
      s.setSoTimeout(10_000);
      s.getOutputStream()
          .write(
              ("GET " + path + " HTTP/1.1\r\nHost: 10.0.0.1\r\nUser-Agent: kube-probe/1.32\r\n\r\n")
                  .getBytes(StandardCharsets.US_ASCII));
      return new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
    }
  }

  private Socket idle(String from) throws IOException {
    Socket s = new Socket();
    s.bind(new InetSocketAddress(from, 0));
    s.connect(new InetSocketAddress("127.0.0.1", probes.port()));
    s.setSoTimeout(10_000);
    hostile.add(s);
    return s;
  }

  /** Whether the server closed {@code s} without answering. */
  private static boolean closedUnanswered(Socket s) {
    try {
      InputStream in = s.getInputStream();
      return in.read() < 0;
    } catch (IOException e) {
      return true; // reset
    }
  }

  @Test
  void answersAProbeAndClosesTheConnection() throws Exception {
    assertThat(probe("127.0.0.1", "/readyz"))
        .startsWith("HTTP/1.1 200 OK\r\n")
        .contains("Content-Length: 3\r\n")
        .contains("Connection: close\r\n")
        .endsWith("\r\n\r\nok\n");
    assertThat(probe("127.0.0.1", "/readyz?verbose")).startsWith("HTTP/1.1 200 ");
    assertThat(probe("127.0.0.1", "/v1/locks/x")).startsWith("HTTP/1.1 404 ");
  }

  @Test
  void aProbeThatFailsAnswers500AndTheNextIsServed() throws Exception {
    assertThat(probe("127.0.0.1", "/boom")).startsWith("HTTP/1.1 500 ");
    assertThat(probe("127.0.0.1", "/readyz")).startsWith("HTTP/1.1 200 ");
  }

  @Test
  void aClientThatResetsAtOnceCostsOnlyItsOwnConnection() throws Exception {
    for (int i = 0; i < 50; i++) {
      try (Socket s = new Socket("127.0.0.1", probes.port())) {
        s.setSoLinger(true, 0); // closed with a reset, perhaps before the server took it
      }
    }
    assertThat(probe("127.0.0.2", "/readyz")).startsWith("HTTP/1.1 200 ");
  }

  @Test
  void aRequestThatDoesNotArriveWholeWithinTheDeadlineIsClosed() throws Exception {
    Socket slow = idle("127.0.0.1");
    slow.getOutputStream().write("GET /rea".getBytes(StandardCharsets.US_ASCII));
    assertThat(closedUnanswered(slow)).isTrue();
  }

  @Test
  void aRequestHeadLargerThanTheBoundIsRefused() throws Exception {
    try (Socket s = idle("127.0.0.1")) {
      s.getOutputStream()
          .write(("GET /readyz HTTP/1.1\r\nX: " + "a".repeat(ProbeServer.MAX_REQUEST)).getBytes());
      assertThat(new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII))
          .startsWith("HTTP/1.1 431 ");
    }
  }

  @Test
  void oneAddressHoldsAFewConnectionsAtMostAndTheKubeletsProbeIsAnsweredMeanwhile()
      throws Exception {
    for (int i = 0; i < ProbeServer.MAX_PER_ADDRESS; i++) {
      idle("127.0.0.1");
    }
    Socket over = idle("127.0.0.1");
    over.getOutputStream()
        .write("GET /readyz HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
    assertThat(closedUnanswered(over)).as("one more from the same address: not answered").isTrue();
    assertThat(probe("127.0.0.2", "/readyz")).startsWith("HTTP/1.1 200 ");
  }

  @Test
  void aFloodFromManyAddressesMakesRoomForTheKubeletByClosingTheOldest() throws Exception {
    int addresses = ProbeServer.MAX_CONNECTIONS / ProbeServer.MAX_PER_ADDRESS + 2;
    for (int a = 0; a < addresses; a++) {
      for (int i = 0; i < ProbeServer.MAX_PER_ADDRESS; i++) {
        idle("127.0.1." + (a + 1));
      }
    }
    assertThat(probe("127.0.0.2", "/readyz")).startsWith("HTTP/1.1 200 ");
    await()
        .atMost(Duration.ofSeconds(10))
        .untilAsserted(() -> assertThat(closedUnanswered(hostile.get(0))).isTrue());
  }
}
