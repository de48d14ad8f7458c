package dev.baton.agent.gate;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.CancelledKeyException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;

/**
 * One end of a connection a {@link GateLoop} forwards: the attachment of its channel's key. Used on
 * the loop's thread only.
 */
final class GateSide {
  final Forwarding forwarding;
  final SocketChannel channel;
  private final GateBuffers buffers;
  SelectionKey key;
  GateSide peer;

  /** Bytes read from this side that its peer has not taken yet; null when none. */
  ByteBuffer pending;

  /** When {@link #pending} was last filled or last moved ({@link System#nanoTime()}). */
  long pendingMoved;

  /** Whether this side ended what it sends. */
  boolean ended;

  GateSide(Forwarding forwarding, SocketChannel channel, GateBuffers buffers) {
    this.forwarding = forwarding;
    this.channel = channel;
    this.buffers = buffers;
  }

  void ready(SelectionKey k) {
    try {
      if (k.isConnectable()) {
        forwarding.connected();
        return;
      }
      if (k.isWritable()) {
        peer.drain();
      }
      if (k.isValid() && k.isReadable()) {
        pump();
      }
    } catch (IOException | CancelledKeyException e) {
      forwarding.broke(this);
    }
  }

  /** Whether this side's bytes for its peer have waited, unmoved, past the loop's stall bound. */
  boolean stalled(long now, long stallNanos) {
    return pending != null && now - pendingMoved > stallNanos;
  }

  /** Reads what this side sent and writes it to the peer. */
  void pump() throws IOException {
    ByteBuffer b = buffers.through();
    b.clear();
    int n = channel.read(b);
    if (n < 0) {
      ended = true;
      key.interestOps(key.interestOps() & ~SelectionKey.OP_READ);
      forwarding.passEnd(this);
      return;
    }
    if (n == 0) {
      return;
    }
    b.flip();
    if (!forwarding.mayRelay()) {
      forwarding.fail(); // past the deadline: what was read goes nowhere
      return;
    }
    if (!forwarding.passes(this, b) || !b.hasRemaining()) {
      return;
    }
    peer.channel.write(b);
    if (b.hasRemaining()) {
      // The peer is slower: keep the rest, read nothing more here until the peer took it.
      ByteBuffer keep = buffers.take();
      if (keep == null) {
        forwarding.overflowed();
        return;
      }
      keep.put(b).flip();
      pending = keep;
      pendingMoved = System.nanoTime();
      key.interestOps(key.interestOps() & ~SelectionKey.OP_READ);
      peer.key.interestOps(peer.key.interestOps() | SelectionKey.OP_WRITE);
    }
  }

  /** The peer can take more: writes what is pending from this side, then reads here again. */
  void drain() throws IOException {
    if (pending == null) {
      return;
    }
    if (!forwarding.mayRelay()) {
      forwarding.fail();
      return;
    }
    if (peer.channel.write(pending) > 0) {
      pendingMoved = System.nanoTime();
    }
    if (pending.hasRemaining()) {
      return;
    }
    buffers.giveBack(pending);
    pending = null;
    peer.key.interestOps(peer.key.interestOps() & ~SelectionKey.OP_WRITE);
    if (!ended && forwarding.reads(this)) {
      key.interestOps(key.interestOps() | SelectionKey.OP_READ);
    }
  }
}
