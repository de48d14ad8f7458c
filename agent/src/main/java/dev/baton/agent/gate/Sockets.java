package dev.baton.agent.gate;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
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

  /**
   * Says {@link Gate#HANDED_BACK} to a relay and ends cleanly. What arrived from it unread is
   * dropped first: a socket closed with unread bytes ends with a reset, which could reach the relay
   * before the word.
   */
  static void sayHandedBack(SocketChannel s) {
    try {
      if (!s.isBlocking()) {
        ByteBuffer drop = ByteBuffer.allocate(GateBuffers.BUFFER);
        for (int i = 0; i < 4 && s.read(drop) > 0; i++) {
          drop.clear();
        }
      }
      s.write(ByteBuffer.wrap(new byte[] {Gate.HANDED_BACK}));
      s.shutdownOutput();
    } catch (IOException e) {
      // the relay went: nobody to tell
    }
    closeQuietly(s);
  }

  /**
   * Says {@link Gate#REFUSED} to a relay and ends its output, before the reset that follows; a
   * reset's peer still reads what arrived before it.
   */
  static void sayRefused(SocketChannel s) {
    try {
      s.write(ByteBuffer.wrap(new byte[] {Gate.REFUSED}));
      s.shutdownOutput();
    } catch (IOException e) {
      // the relay went: nobody to tell
    }
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
