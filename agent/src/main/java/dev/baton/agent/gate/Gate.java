package dev.baton.agent.gate;

import dev.baton.agent.config.GateRoute;
import dev.baton.agent.leadership.Exclusive;
import dev.baton.agent.metrics.AgentMetrics;
import dev.baton.agent.threads.AgentThreads;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP gate: listens on a port of every interface and, while open, forwards each connection to
 * its target byte for byte. Closing resets every forwarded connection on both sides (RST: the
 * client fails at once and reconnects, through the Service, to the new leader) and refuses new ones
 * (accepted, then reset at once) until it opens again.
 *
 * <p>A few event loops ({@link GateLoop}, two per core up to {@link #MAX_LOOPS}) carry every
 * connection, where a thread per direction and connection cost two threads and their stacks per
 * connection. Two per core, not one: a loop that wakes the application (or the client) is often
 * preempted by it, and while it waits for the CPU every connection it carries waits too; with more
 * loops than cores the others go on (measured: one loop per core lost a fifth of the throughput of
 * 64 busy connections on 2 cores, two per core none, for the same CPU per round trip). The first
 * loop also accepts and hands each connection to the loops in turn.
 *
 * <p>Why the cut misses nothing: {@link #closed} and the hand-over of an accepted connection to its
 * loop both run under this gate's lock, and {@link #closed} queues a cut on every loop. A
 * connection handed over before the cut is queued is in its loop's set when the cut runs there; one
 * accepted after it finds the gate shut and is reset. {@link #closed} returns once every loop has
 * reset its connections (RST sent on both sides).
 *
 * <p>Why a paused gate relays nothing late: every loop checks the hold's deadline ({@link
 * #openUntil}) after each wake-up and before each write, by the monotonic clock, and cuts instead.
 *
 * <p>In relay mode (docs/design.md, "Relay"), a gate's shut answer is not a reset: a connection it
 * cannot take goes to its {@link Relay}, which carries it to the leader's agent. There it arrives
 * on the leader-only gate, which judges the relay's preamble ({@link RelayHandshake}: this group, a
 * term no older than the one the gate opened with) and answers one byte, {@link #ACCEPTED}, only
 * when it takes the connection, under the same lock and check as any other connection; a shut
 * leader-only gate resets it before a client byte was passed on, so the relay can try the next
 * leader. Then, before the first byte passes either way, it says {@link #PASSING}; a connection
 * that ends before that (the gate shut in the moment after it took it) gets {@link #HANDED_BACK}
 * and a clean end instead, and the relay carries the bytes it sent to the next holder. The
 * leader-only gate never relays again: no loops.
 */
public final class Gate implements Exclusive, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Gate.class);
  static final int MAX_LOOPS = 8;

  /** The leader-only gate's answer to a relay it takes. */
  static final byte ACCEPTED = 'Y';

  /**
   * The leader-only gate's answer to a relay of {@link RelayHandshake#VERSION} that it refuses, so
   * that the relay can tell it from an agent of version 2, which resets a line it does not know.
   */
  static final byte REFUSED = 'N';

  /**
   * Said to a relay of {@link RelayHandshake#VERSION} before the first byte passes either way: from
   * here the connection is this gate's app's.
   */
  static final byte PASSING = 'P';

  /**
   * Said instead of {@link #PASSING} when the connection ends first (the gate shut, its app closed
   * or was not there): no byte passed either way, so the relay carries the client's bytes to the
   * next holder.
   */
  static final byte HANDED_BACK = 'B';

  private final GateRoute route;
  private final AgentMetrics metrics;
  private final ServerSocketChannel server;
  private final RelayHandshake handshake; // null: a public gate
  private volatile Consumer<SocketChannel> whenShut; // null: reset
  private final List<GateLoop> loops = new ArrayList<>();
  private int next; // the loop the next connection goes to; guarded by this
  private volatile GateWindow window = GateWindow.SHUT; // written under this
  private long openTerm; // the term the gate last opened with; guarded by this
  private final java.util.concurrent.atomic.AtomicInteger live =
      new java.util.concurrent.atomic.AtomicInteger();
  private final GateLimits limits;

  /**
   * How a gate listens.
   *
   * @param bindHost the address to listen on; null: every interface
   * @param handshake for a leader-only gate, how a relay's preamble is judged; null for a public
   *     gate
   * @param loops its event loops
   * @param limits what it holds at most
   * @param announce whether it logs that it listens (a rehearsal's scratch gate does not)
   */
  public record Listening(
      String bindHost, RelayHandshake handshake, int loops, GateLimits limits, boolean announce) {

    /** As the agent runs a gate: two loops a core, up to {@link #MAX_LOOPS}. */
    public static Listening on(String bindHost, RelayHandshake handshake) {
      return new Listening(
          bindHost,
          handshake,
          Math.min(MAX_LOOPS, 2 * Runtime.getRuntime().availableProcessors()),
          GateLimits.DEFAULT,
          true);
    }

    /** A scratch gate of one loop that says nothing of itself ({@link GateRehearsal}). */
    static Listening scratch(String bindHost, RelayHandshake handshake) {
      return new Listening(bindHost, handshake, 1, GateLimits.DEFAULT, false);
    }

    Listening bounded(int loops, GateLimits limits) {
      return new Listening(bindHost, handshake, loops, limits, announce);
    }
  }

  /** A public gate on every interface. */
  public Gate(GateRoute route, AgentMetrics metrics, AgentThreads threads) {
    this(route, Listening.on(null, null), metrics, threads);
  }

  /**
   * Binds the port at once, so that a port in use stops the agent before anything else starts.
   *
   * @throws IllegalStateException naming the port when it cannot be bound
   */
  public Gate(GateRoute route, Listening listening, AgentMetrics metrics, AgentThreads threads) {
    this.route = route;
    this.limits = listening.limits();
    this.metrics = metrics;
    this.handshake = listening.handshake();
    java.util.concurrent.Semaphore pending = new java.util.concurrent.Semaphore(limits.pending());
    InetSocketAddress target = new InetSocketAddress(route.targetHost(), route.targetPort());
    ServerSocketChannel s = null;
    try {
      s = ServerSocketChannel.open();
      s.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      s.bind(
          listening.bindHost() == null
              ? new InetSocketAddress(route.listenPort())
              : new InetSocketAddress(listening.bindHost(), route.listenPort()),
          256);
      s.configureBlocking(false);
      GateLoop.Shared shared =
          new GateLoop.Shared(
              route,
              target,
              metrics,
              this::mayRelay,
              live::decrementAndGet,
              limits,
              pending,
              threads);
      for (int i = 0; i < listening.loops(); i++) {
        loops.add(new GateLoop("baton-agent-gate-" + route.listenPort() + "-" + i, shared));
      }
      loops.get(0).accepting(s, this::accepted);
    } catch (IOException e) {
      Sockets.closeQuietly(s);
      loops.forEach(GateLoop::stop);
      throw new IllegalStateException(
          "gate port " + route.listenPort() + " cannot be bound: " + e.getMessage(), e);
    }
    server = s;
    loops.forEach(GateLoop::start);
    if (listening.announce()) {
      log.info(
          "gate {} listening{}, shut until this pod leads",
          route,
          handshake == null ? "" : " (leader-only: relays from other pods' agents)");
    }
  }

  /** Relay mode: a connection this gate cannot take goes to {@code relay}, not reset. */
  public void relayWhenShut(Consumer<SocketChannel> relay) {
    this.whenShut = relay;
  }

  public GateRoute route() {
    return route;
  }

  public int port() {
    return server.socket().getLocalPort();
  }

  /** Connections forwarded now. */
  int live() {
    return live.get();
  }

  @Override
  public synchronized void openUntil(long untilNanos) {
    window = window.until(untilNanos);
  }

  @Override
  public synchronized void opened(long term) {
    window = window.opened();
    openTerm = term;
  }

  /**
   * Whether a byte may be relayed at {@code nowNanos}: open, and not past the hold's deadline. A
   * loop that wakes past it (its process was paused, say) cuts before it relays anything, whether
   * or not the leadership's own timer has closed the gate yet.
   */
  boolean mayRelay(long nowNanos) {
    return window.mayRelay(nowNanos);
  }

  @Override
  public void closed(String reason) {
    List<CountDownLatch> cuts = new ArrayList<>();
    synchronized (this) {
      window = window.shut();
      for (GateLoop loop : loops) {
        cuts.add(loop.cut(reason));
      }
    }
    boolean interrupted = false;
    for (int i = 0; i < cuts.size(); i++) {
      while (true) {
        try {
          if (cuts.get(i).await(100, TimeUnit.MILLISECONDS)) {
            break;
          }
          loops.get(i).runTasksIfStopped();
        } catch (InterruptedException e) {
          interrupted = true; // the connections must be closed before this returns
        }
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
  }

  /** On the first loop: a connection was accepted. */
  private void accepted(SocketChannel client) {
    if (handshake != null) {
      loops.get(0).readPreamble(client, this::handshaken);
      return;
    }
    if (take(client, null)) {
      return;
    }
    Consumer<SocketChannel> relay = whenShut;
    if (relay != null) {
      relay.accept(client);
      return;
    }
    refuse(client);
  }

  /**
   * Forwards {@code client} if the gate may relay now; for a relay's {@code preamble} (null: a
   * direct connection), only if the handshake accepts it for the term the gate is open with, and
   * says so first.
   */
  private synchronized boolean take(SocketChannel client, String preamble) {
    if (!mayRelay(System.nanoTime())) {
      return false;
    }
    if (live.get() >= limits.connections()) {
      metrics.gateBounded(route.listenPort(), "connections");
      return false;
    }
    if (handshake != null) {
      String refusal = handshake.refusal(preamble, openTerm);
      if (refusal != null) {
        log.debug("gate {}: {}, reset", route, refusal);
        return false;
      }
      try {
        // One byte on a fresh connection: the socket's buffer takes it at once.
        if (client.write(ByteBuffer.wrap(new byte[] {ACCEPTED})) != 1) {
          return false;
        }
      } catch (IOException e) {
        return false;
      }
    }
    metrics.gateAccepted(route.listenPort());
    live.incrementAndGet();
    loops.get(next).forward(client, preamble != null && RelayHandshake.asksForPassing(preamble));
    next = (next + 1) % loops.size();
    return true;
  }

  /**
   * A leader-only gate's connection, its preamble read: taken as any other, or reset, after the
   * word {@link #REFUSED} to a relay of version 3.
   */
  private void handshaken(SocketChannel client, String preamble) {
    if (!take(client, preamble)) {
      if (RelayHandshake.asksForPassing(preamble)) {
        Sockets.sayRefused(client);
      }
      refuse(client);
    }
  }

  private void refuse(SocketChannel client) {
    // Counted first: whoever sees the reset may read the count at once.
    metrics.gateRefused(route.listenPort());
    Sockets.rst(client); // not registered anywhere: the socket closes, and resets, at once
  }

  @Override
  public void close() {
    closed("the agent is stopping");
    loops.forEach(GateLoop::stop);
    Sockets.closeQuietly(server);
  }

  static boolean isAccept(SelectionKey key) {
    return key.attachment() == null;
  }
}
