package dev.baton.agent.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A relay's preamble as a gate's loop reads it: whatever has arrived, without blocking. */
class PreambleTest {

  private final ServerSocketChannel server;
  private final java.net.Socket client;
  private final SocketChannel accepted;

  PreambleTest() throws IOException {
    server = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
    client = new java.net.Socket("127.0.0.1", server.socket().getLocalPort());
    accepted = server.accept();
    accepted.configureBlocking(false);
  }

  @AfterEach
  void close() throws IOException {
    client.close();
    accepted.close();
    server.close();
  }

  private void send(String s) throws IOException {
    OutputStream out = client.getOutputStream();
    out.write(s.getBytes(StandardCharsets.US_ASCII));
    out.flush();
  }

  /** Reads until the preamble is decided: its line, or "refused: " and why. */
  private static String decided(Preamble p) {
    String[] outcome = new String[1];
    await()
        .atMost(Duration.ofSeconds(10))
        .until(
            () -> {
              try {
                outcome[0] = p.read();
              } catch (IOException e) {
                outcome[0] = "refused: " + e.getMessage();
              }
              return outcome[0] != null;
            });
    return outcome[0];
  }

  @Test
  void aLineArrivingInPiecesIsWholeAtItsNewline() throws Exception {
    Preamble p = new Preamble(accepted);
    assertThat(p.read()).isNull();
    send("BATON-RELAY/2 shop/");
    assertThat(p.read()).isNull();
    send("orders 1 7001 -\n");
    assertThat(decided(p)).isEqualTo("BATON-RELAY/2 shop/orders 1 7001 -");
  }

  @Test
  void bytesAfterTheLineBeforeTheAnswerAreNotARelays() throws Exception {
    Preamble p = new Preamble(accepted);
    send("BATON-RELAY/2 shop/orders 1 7001 -\nGET /");
    assertThat(decided(p)).startsWith("refused: ").contains("after the preamble");
  }

  @Test
  void anOverlongLineAndAClosedConnectionAreNotARelays() throws Exception {
    Preamble p = new Preamble(accepted);
    send("x".repeat(RelayHandshake.MAX_BYTES + 1));
    assertThat(decided(p)).startsWith("refused: ").contains("over " + RelayHandshake.MAX_BYTES);

    Preamble q = new Preamble(accepted);
    client.close();
    assertThat(decided(q)).startsWith("refused: ").contains("closed");
  }

  @Test
  void aPreambleExpiresOneDeadlineAfterItsConnectionWasTaken() {
    Preamble p = new Preamble(accepted);
    assertThat(p.expired(p.started + RelayHandshake.DEADLINE_MILLIS * 1_000_000L)).isFalse();
    assertThat(p.expired(p.started + RelayHandshake.DEADLINE_MILLIS * 1_000_000L + 1)).isTrue();
  }
}
