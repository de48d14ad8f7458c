package dev.baton.agent.gate;

import java.io.IOException;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ClosedSelectorException;
import java.nio.channels.SelectionKey;
import java.nio.channels.SocketChannel;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection a {@link GateLoop} carries: the client's and the one to its target, used on the
 * loop's thread only.
 */
final class Forwarding {

  private static final Logger log = LoggerFactory.getLogger(Forwarding.class);

  private final GateLoop loop;
  final GateSide client;
  final GateSide target;
  long connectStarted;
  int halfClosed;
  boolean finished;

  /**
   * Whether a byte passed either way that cannot be taken back: from then on the connection is the
   * target's.
   */
  boolean moved;

  /**
   * A leader-only gate's relayed connection that is told {@link Gate#PASSING} before the first byte
   * passes, or {@link Gate#HANDED_BACK} if it ends first; and whether it was told.
   */
  boolean saysPassing;

  boolean said;

  /** A relay's connection to a gate that says whether it passes, its word not read yet. */
  boolean awaitsPassing;

  /** The client's bytes sent to that gate meanwhile, kept until its word; null: none kept. */
  Unpassed unpassed;

  /** What the relay carried it with: given back with the client on a hand-back. */
  Object carried;

  /**
   * @param connectedTarget null: a new connection to the loop's target
   */
  Forwarding(GateLoop loop, SocketChannel clientChannel, SocketChannel connectedTarget) {
    this.loop = loop;
    client = new GateSide(this, clientChannel, loop.buffers);
    SocketChannel t = connectedTarget;
    try {
      if (t == null) {
        t = SocketChannel.open();
      }
    } catch (IOException e) {
      log.debug("gate {}: no socket for the target: {}", loop.route, e.getMessage());
    }
    target = new GateSide(this, t, loop.buffers);
    client.peer = target;
    target.peer = client;
  }

  /** Whether a byte may be written to either side now. */
  boolean mayRelay() {
    return loop.mayRelay.test(System.nanoTime());
  }

  /** On the loop thread: counts it as forwarded and starts connecting to the target. */
  void connect() {
    loop.forwardings.add(this);
    try {
      if (target.channel == null) {
        throw new IOException("no socket for the target");
      }
      client.channel.configureBlocking(false);
      client.channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
      target.channel.configureBlocking(false);
      target.channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
      client.key = client.channel.register(loop.selector, 0, client);
      if (target.channel.isConnected()) {
        target.key = target.channel.register(loop.selector, SelectionKey.OP_READ, target);
        client.key.interestOps(SelectionKey.OP_READ);
      } else if (target.channel.connect(loop.target)) {
        target.key = target.channel.register(loop.selector, 0, target);
        connected();
      } else {
        target.key = target.channel.register(loop.selector, SelectionKey.OP_CONNECT, target);
        connectStarted = System.nanoTime();
        loop.connecting.add(this);
      }
    } catch (IOException | ClosedSelectorException e) {
      log.debug("gate {}: target not reachable: {}", loop.route, e.toString());
      fail();
    }
  }

  void connected() throws IOException {
    loop.connecting.remove(this);
    try {
      target.channel.finishConnect();
    } catch (IOException e) {
      log.debug("gate {}: target not reachable: {}", loop.route, e.getMessage());
      throw e;
    }
    target.key.interestOps(SelectionKey.OP_READ);
    client.key.interestOps(SelectionKey.OP_READ);
  }

  /**
   * A relay's connection given bytes that an earlier gate handed back: they go to this gate first,
   * kept until its word if it gives one, and nothing more is read from the client until then.
   */
  void sendFirst(Unpassed first) {
    if (first == null) {
      return;
    }
    ByteBuffer b = first.bytes();
    if (awaitsPassing) {
      unpassed = first; // released with the word, or when the connection ends
    } else {
      moved = true; // a gate that says nothing: sent is passed, and no copy is kept
      first.release();
    }
    client.key.interestOps(client.key.interestOps() & ~SelectionKey.OP_READ);
    try {
      target.channel.write(b);
    } catch (IOException e) {
      broke(target);
      return;
    }
    if (b.hasRemaining()) {
      ByteBuffer keep = loop.buffers.take();
      if (keep == null) {
        overflowed();
        return;
      }
      keep.put(b).flip();
      client.pending = keep;
      client.pendingMoved = System.nanoTime();
      target.key.interestOps(target.key.interestOps() | SelectionKey.OP_WRITE);
    } else if (!awaitsPassing) {
      client.key.interestOps(client.key.interestOps() | SelectionKey.OP_READ);
    }
  }

  /**
   * Whether the bytes {@code b} just read from {@code from} go on to its peer (what remains of
   * them). A gate that says whether it passes says {@link Gate#PASSING} first. A relay takes the
   * gate's word off the first bytes from it: on {@link Gate#HANDED_BACK} the client goes to the
   * next holder with what it sent; and until the word came, it keeps a copy of the client's first
   * read and reads nothing more from the client.
   */
  boolean passes(GateSide from, ByteBuffer b) throws IOException {
    if (saysPassing && !said) {
      said = true;
      if (client.channel.write(ByteBuffer.wrap(new byte[] {Gate.PASSING})) != 1) {
        fail();
        return false;
      }
    } else if (awaitsPassing && from == target) {
      awaitsPassing = false;
      byte word = b.get();
      if (word == Gate.PASSING) {
        dropUnpassed();
        if (!client.ended && client.pending == null) {
          client.key.interestOps(client.key.interestOps() | SelectionKey.OP_READ);
        }
      } else if (word == Gate.HANDED_BACK && !moved && !client.ended) {
        Unpassed u = unpassed;
        unpassed = null;
        giveClientBack(u);
        return false;
      } else {
        lost(
            "its gate said "
                + shown(word)
                + (moved ? " after a read passed without a copy" : "")
                + (client.ended ? " after the client ended" : ""));
        fail();
        return false;
      }
    } else if (awaitsPassing) {
      client.key.interestOps(client.key.interestOps() & ~SelectionKey.OP_READ);
      if (!moved && unpassed == null) {
        unpassed = Unpassed.keep(b, loop.budget);
      }
      if (unpassed == null) {
        moved = true; // no copy (the budget is spent): these bytes go with this gate
      }
      return true;
    }
    moved = true;
    return true;
  }

  /** Whether {@code side} may be read from once its pending bytes drained. */
  boolean reads(GateSide side) {
    return !(awaitsPassing && side == client && (moved || unpassed != null));
  }

  private void dropUnpassed() {
    if (unpassed != null) {
      unpassed.release();
      unpassed = null;
    }
  }

  /**
   * {@code from} ended, and everything it sent was passed on (nothing is read from a side while
   * some of it is pending): half-close its peer's output; once both ended, close both. A gate's app
   * that ended before a byte passed hands a relay's connection back.
   */
  void passEnd(GateSide from) throws IOException {
    if (handBack(from)) {
      return;
    }
    if (saysPassing && !said && from == target) {
      fail();
      return;
    }
    from.peer.channel.shutdownOutput();
    if (++halfClosed == 2) {
      end();
      Sockets.closeQuietly(client.channel);
      Sockets.closeQuietly(target.channel);
    }
  }

  /** A slower peer's bytes would need a buffer beyond the loop's bound: reset, not kept. */
  void overflowed() {
    log.debug("gate {}: every buffer for slower peers is held, a connection reset", loop.route);
    loop.bounded("buffers");
    fail();
  }

  /** Either side broke: both go, with RST. */
  void fail() {
    end();
    reset();
  }

  /** {@code side} broke: both go with RST, unless the client can be handed back. */
  void broke(GateSide side) {
    if (!handBack(side)) {
      if (awaitsPassing) {
        // A write to the gate that fails shows on the client's side: say where, not whose fault.
        lost("the " + (side == target ? "gate's" : "client's") + " side failed before the word");
      }
      fail();
    }
  }

  /** On a relay's loop: the client is reset before its gate said whether it passed its bytes. */
  /** A word as it reads in a log line: a holder may be hostile, so never a control character. */
  static String shown(byte word) {
    return word >= 0x21 && word <= 0x7e ? "'" + (char) word + "'" : "byte " + (word & 0xff);
  }

  private void lost(String why) {
    if (loop.untouched != null) {
      loop.untouched.lost(why);
    }
  }

  /**
   * On a relay's loop, the target ({@code side}) ended or broke before a byte moved either way and
   * before anything of the client's was sent to it: the client, which nobody has read from, goes
   * back to the relay for the next leader's gate.
   */
  private boolean handBack(GateSide side) {
    if (loop.untouched == null || moved || unpassed != null || side != target || finished) {
      return false;
    }
    giveClientBack(null);
    return true;
  }

  private void giveClientBack(Unpassed sent) {
    end();
    Sockets.rst(target.channel);
    client.key.cancel();
    // Handed over once the selector let go of the channel: the queued task runs after the
    // selectNow that completes the cancel.
    SocketChannel c = client.channel;
    Object with = carried;
    loop.submit(() -> loop.untouched.handBack(c, with, sent));
  }

  private void end() {
    loop.connecting.remove(this);
    loop.forwardings.remove(this);
    finished();
  }

  /** Counted as ended once, whether it ended, broke or was cut. */
  private void finished() {
    if (!finished) {
      finished = true;
      if (loop.metrics != null) {
        loop.metrics.gateEnded(loop.route.listenPort());
      }
      loop.ended.run();
      loop.buffers.giveBack(client.pending);
      loop.buffers.giveBack(target.pending);
      client.pending = null;
      target.pending = null;
      dropUnpassed();
    }
  }

  /**
   * Closes both sides with RST (SO_LINGER 0), so the peers see a reset, not a clean end; but a
   * relay not yet told whether its bytes passed is told {@link Gate#HANDED_BACK} and ended cleanly:
   * nothing passed.
   */
  void reset() {
    if (saysPassing && !said) {
      said = true;
      Sockets.sayHandedBack(client.channel);
    } else {
      Sockets.rst(client.channel);
    }
    Sockets.rst(target.channel);
    finished();
  }
}
