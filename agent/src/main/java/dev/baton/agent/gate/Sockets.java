package dev.baton.agent.gate;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.channels.Channel;
import java.nio.channels.SocketChannel;

/** Closing the gate's sockets: with a reset, or quietly. */
final class Sockets {

  private Sockets() {}

  /** Closes with RST (SO_LINGER 0): the peer sees a reset, not a clean end. */
  static void rst(SocketChannel s) {
    if (s == null) {
      return;
    }
    try {
      if (s.isOpen()) {
        s.setOption(StandardSocketOptions.SO_LINGER, 0);
      }
    } catch (IOException e) {
      // not connected: nothing to reset
    }
    closeQuietly(s);
  }

  static void closeQuietly(Channel c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
