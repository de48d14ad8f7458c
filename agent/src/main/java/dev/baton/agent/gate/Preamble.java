package dev.baton.agent.gate;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;

/**
 * A relay's preamble as a leader-only gate's loop reads it, without a thread: whatever has arrived
 * of one line of at most {@link RelayHandshake#MAX_BYTES} bytes. A relay sends nothing after its
 * line before the gate answers, so a byte after the newline is a client that is not a relay.
 */
final class Preamble {

  final SocketChannel channel;
  final long started = System.nanoTime();
  private final ByteBuffer read = ByteBuffer.allocate(RelayHandshake.MAX_BYTES + 1);

  Preamble(SocketChannel channel) {
    this.channel = channel;
  }

  /**
   * Reads what arrived: the line without its newline once it is whole, null while it is not.
   *
   * @throws IOException when it can never be a relay's line: closed, too long, or followed by more
   */
  String read() throws IOException {
    if (channel.read(read) < 0) {
      throw new IOException("closed before its preamble ended");
    }
    byte[] b = read.array();
    for (int i = 0; i < read.position(); i++) {
      if (b[i] == '\n') {
        if (i + 1 != read.position()) {
          throw new IOException("bytes after the preamble, before the answer");
        }
        return new String(b, 0, i, StandardCharsets.US_ASCII);
      }
    }
    if (read.position() > RelayHandshake.MAX_BYTES) {
      throw new IOException("a preamble over " + RelayHandshake.MAX_BYTES + " bytes");
    }
    return null;
  }

  boolean expired(long now) {
    return now - started > RelayHandshake.DEADLINE_MILLIS * 1_000_000L;
  }
}
