package dev.baton.agent.gate;

import dev.baton.agent.config.GateRoute;
import dev.baton.agent.leadership.LeadershipView;
import dev.baton.agent.metrics.AgentMetrics;
import dev.baton.agent.threads.AgentThreads;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A follower's side of relay mode: each connection its shut gate could not take is carried to the
 * leader's agent, on that agent's leader-only gate, and piped byte for byte. Where the leader is
 * comes from the gate key's hold ({@link LeadershipView#leaderIp()}): a proven hold, whose gate may
 * be open. Nothing of the client's is read before the leader's gate answered that it took the
 * connection, and then the gate says whether it passes the first bytes on or hands the connection
 * back unpassed (it shut meanwhile): until it said, the relay keeps a copy of the client's first
 * read and reads no more. So a gate that just shut costs a retry against the next holder, with the
 * client's bytes, never a lost byte; while no holder is known (a hand-over), the connection waits
 * for up to {@code holdFor}, and is reset only after that.
 *
 * <p>The relay decides nothing about exclusivity: the leader's gate does, as for a direct
 * connection, and cuts a relayed connection with the others when it shuts (the reset travels back
 * through the pipe).
 *
 * <p>Finding the leader's gate takes a thread per connection, a connect and a one-byte answer
 * waited for in 5 ms slices (a try is left as soon as the agent knows of another holder; one
 * waiting for a holder is woken when it becomes known, {@link #holderChanged}), and at most {@link
 * #MAX_REACHING} at once (more are reset): it lasts milliseconds, or the moment of a hand-over. A
 * gate that took a connection and shut before a byte passed either way hands the client back, with
 * what it had sent, to be carried to the next holder. A gate of version 3 refuses with a word
 * ({@link Gate#REFUSED}); one that resets the line without a word is taken for an agent from before
 * the word, which does not know the line, and asked again at once on version 2, where a client byte
 * sent is passed for good. Once the leader's gate took the connection, both ends go to the relay's
 * event loops ({@link GateLoop}), as a gate's connections do, and hold no thread: idle relayed
 * connections cost a few KiB each, up to {@link #MAX_RELAYED}.
 */
public final class Relay {

  private static final Logger log = LoggerFactory.getLogger(Relay.class);

  private static final long POLL_MILLIS = 5;

  /**
   * A holder whose gate refused (or handed the connection back) is tried again after a pause that
   * starts here and doubles with each refusal in a row: a follower often learns of a new holder a
   * moment before that holder's gate opens, and a connection refused then should not wait long; an
   * app that closes every connection at once costs a few tries, not a storm.
   */
  private static final long SAME_AGAIN_FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(5);

  private static final long SAME_AGAIN_MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private static final long STACK_BYTES = 1L << 18;

  /** Connections looking for the leader's gate at once (a thread each); more are reset. */
  static final int MAX_REACHING = 64;

  /** Connections relayed at once (no thread, a few KiB each); more are reset. */
  static final int MAX_RELAYED = 4096;

  private static final int LOOPS = 2;

  /**
   * Where a relay carries its connections, and how long each may wait.
   *
   * @param publicPort the port whose shut gate hands its connections to the relay
   * @param leaderOnlyPort the port of every agent's leader-only gate
   * @param handshake what that gate expects first
   * @param bindHost the address relayed connections leave from (the pod's, which the leader-only
   *     gate's network policy admits); null: the system's choice
   * @param holdFor how long a connection may wait for a leader's gate before it is reset
   */
  public record Route(
      int publicPort,
      int leaderOnlyPort,
      RelayHandshake handshake,
      String bindHost,
      Duration holdFor,
      Tries tries) {}

  /**
   * How long one try at a leader's gate waits.
   *
   * @param connectWithin for the gate to connect
   * @param answerWithin for its answer to the preamble
   */
  public record Tries(Duration connectWithin, Duration answerWithin) {

    /**
     * A leader's gate on the pod network connects in well under a millisecond and answers a
     * preamble from its event loop at once; an address that takes longer is gone or overloaded, and
     * the connection is better tried again or elsewhere.
     */
    public static final Tries POD_NETWORK =
        new Tries(Duration.ofMillis(100), Duration.ofMillis(250));
  }

  private final Route route;
  private final int publicPort;
  private final long connectNanos;
  private final long answerNanos;
  private final Supplier<LeadershipView> leadership;
  private final AgentMetrics metrics;
  private final ExecutorService threads;
  private final List<GateLoop> loops = new ArrayList<>();
  private final AtomicInteger relayed = new AtomicInteger();
  private final AtomicInteger next = new AtomicInteger();

  /** Notified when the holder followers see changes: connections waiting for one try it at once. */
  private final Object holderChanged = new Object();

  public Relay(
      Route route,
      Supplier<LeadershipView> leadership,
      AgentMetrics metrics,
      AgentThreads agentThreads) {
    this.connectNanos = route.tries().connectWithin().toNanos();
    this.answerNanos = route.tries().answerWithin().toNanos();
    this.route = route;
    this.publicPort = route.publicPort();
    this.leadership = leadership;
    this.metrics = metrics;
    this.threads =
        agentThreads.bounded("baton-agent-relay-" + publicPort, MAX_REACHING, STACK_BYTES);
    java.util.concurrent.Semaphore pending =
        new java.util.concurrent.Semaphore(GateLimits.DEFAULT.pending());
    GateLoop.Shared shared =
        new GateLoop.Shared(
            new GateRoute(publicPort, "leader", route.leaderOnlyPort()),
            null,
            null,
            now -> true, // the leader's gate decides; a reset there travels back through
            relayed::decrementAndGet,
            GateLimits.DEFAULT,
            pending,
            agentThreads);
    try {
      for (int i = 0; i < LOOPS; i++) {
        loops.add(new GateLoop("baton-agent-relay-" + publicPort + "-loop-" + i, shared));
      }
    } catch (IOException e) {
      loops.forEach(GateLoop::stop);
      throw new IllegalStateException("relay " + publicPort + ": no event loop: " + e, e);
    }
    GateLoop.Untouched untouched =
        new GateLoop.Untouched() {
          @Override
          public void handBack(SocketChannel client, Object carried, Unpassed unpassed) {
            Relay.this.handBack(client, carried, unpassed);
          }

          @Override
          public void lost(String why) {
            metrics.relay(publicPort, "lost");
            log.info("relay {}: a connection reset: {}", publicPort, why);
          }
        };
    loops.forEach(l -> l.handingBack(untouched));
    loops.forEach(GateLoop::start);
  }

  /** From the gate's accepting thread: carries {@code client} on a thread of its own. */
  public void take(SocketChannel client) {
    if (relayed.get() >= MAX_RELAYED) {
      metrics.relay(publicPort, "refused");
      Sockets.rst(client);
      return;
    }
    carryOnAThread(
        client, new Carried(System.nanoTime() + route.holdFor().toNanos(), null, 0, 0, null));
  }

  /**
   * A connection's way to a leader's gate: its deadline, the holder last tried without success
   * (null: none), when, and how many times in a row, so that one is tried again only after a pause
   * ({@link #sameAgainAfter}), and the client's bytes a gate handed back unpassed (null: none),
   * which go to the next one first.
   */
  private record Carried(
      long deadline, String refusedBy, long refusedAt, int refusals, Unpassed unpassed) {

    Carried tried(String by, long at, int times, Unpassed sent) {
      return new Carried(deadline, by, at, times, sent);
    }

    /** Resets the client: no gate took it. */
    void refuse(SocketChannel client) {
      if (unpassed != null) {
        unpassed.release();
      }
      Sockets.rst(client);
    }
  }

  private void carryOnAThread(SocketChannel client, Carried carried) {
    try {
      threads.execute(() -> carry(client, carried));
    } catch (RuntimeException e) {
      metrics.relay(publicPort, "refused");
      carried.refuse(client);
    }
  }

  /**
   * From a relay loop's thread: the leader's gate that took {@code client} handed it back, or ended
   * or broke before a byte moved (it shut in the moment after it took it); nothing of the client's
   * reached its app, so it goes to the next leader's gate with what it sent ({@code unpassed}),
   * within what is left of its hold.
   */
  private void handBack(SocketChannel client, Object carried, Unpassed unpassed) {
    metrics.relay(publicPort, "retried");
    // That holder let it go: the next one at once, the same one (an app that closed a silent
    // connection, say) only after a pause, as a holder that refused.
    Carried c = (Carried) carried;
    carryOnAThread(client, c.tried(c.refusedBy(), System.nanoTime(), c.refusals() + 1, unpassed));
  }

  private void carry(SocketChannel channel, Carried carried) {
    long deadline = carried.deadline();
    try (Selector selector = Selector.open()) {
      channel.configureBlocking(true);
      channel.socket().setTcpNoDelay(true);
      String refusedBy = carried.refusedBy();
      long refusedAt = carried.refusedAt();
      int refusals = carried.refusals();
      while (true) {
        Holder h = holder();
        if (h != null
            && (!h.is(refusedBy) || System.nanoTime() - refusedAt > sameAgainAfter(refusals))) {
          Reached r = reachOnEitherVersion(selector, h, deadline);
          SocketChannel leader = r.taken();
          if (leader != null) {
            metrics.relay(publicPort, "relayed");
            channel.configureBlocking(false);
            relayed.incrementAndGet();
            loops
                .get(Math.floorMod(next.getAndIncrement(), loops.size()))
                .carry(
                    channel,
                    leader,
                    carried.tried(h.who(), 0, h.is(refusedBy) ? refusals : 0, null),
                    r.saysPassing(),
                    carried.unpassed());
            return;
          }
          // That gate shut, is gone, or is not there yet: the next holder, or this one a little
          // later.
          refusals = h.is(refusedBy) ? refusals + 1 : 1;
          refusedBy = h.who();
          refusedAt = System.nanoTime();
        }
        if (System.nanoTime() - deadline >= 0) {
          break;
        }
        // Woken by the next holder's arrival; a change told between the look and the wait is
        // found by the next look, a poll later.
        synchronized (holderChanged) {
          holderChanged.wait(POLL_MILLIS);
        }
      }
      log.debug(
          "relay {}: no leader's gate took a connection within {}", publicPort, route.holdFor());
    } catch (IOException e) {
      log.debug("relay {}: {}", publicPort, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    metrics.relay(publicPort, "refused");
    carried.refuse(channel);
  }

  /** The pause before a holder that refused {@code refusals} times in a row is tried again. */
  static long sameAgainAfter(int refusals) {
    return refusals <= 0
        ? 0
        : Math.min(SAME_AGAIN_MAX_NANOS, SAME_AGAIN_FIRST_NANOS << Math.min(refusals - 1, 16));
  }

  /**
   * Tells the connections waiting for a leader's gate that the holder changed (from the leadership
   * loop, on every change of what followers see): they try it now rather than at their next poll.
   */
  public void holderChanged() {
    synchronized (holderChanged) {
      holderChanged.notifyAll();
    }
  }

  /** The holder followers see now: its address and term; null while none is known. */
  private Holder holder() {
    LeadershipView v = leadership.get();
    return v.leaderIp() == null || v.leaderTerm() == null
        ? null
        : new Holder(v.leaderIp(), v.leaderTerm());
  }

  private record Holder(String ip, long term) {
    String who() {
      return ip + " " + term;
    }

    boolean is(String who) {
      return who().equals(who);
    }
  }

  /**
   * A try at a leader's gate: the connection it took (null: none), the try's result, as its metric
   * says it ({@link #SILENT} as {@code silent}), and whether it was asked on {@link
   * RelayHandshake#VERSION}, whose gate says whether it passes the client's bytes.
   */
  private record Reached(SocketChannel taken, String result, boolean saysPassing) {}

  /**
   * A try at {@code h}'s gate on version 3; a gate of version 3 refuses with a word, so a reset
   * without one is an agent from before it (or a gate that could not read the line), asked again at
   * once on version 2.
   */
  private Reached reachOnEitherVersion(Selector selector, Holder h, long deadline) {
    Reached r = reach(selector, h, deadline, RelayHandshake.VERSION);
    if (!r.result().equals(SILENT)) {
      return r;
    }
    r = reach(selector, h, deadline, RelayHandshake.VERSION_2);
    if (r.taken() != null) {
      // Rare but for agents of the last version: its bytes are passed for good once sent.
      log.info("relay {}: {} took a connection on version 2", publicPort, h.who());
    }
    return r;
  }

  /** A try the gate reset or ended without a word (an agent of version 2, or one going). */
  private static final String SILENT = "refused without a word";

  /**
   * A connection to the leader's gate that it took for {@code h} on a preamble of {@code version},
   * or none when it did not: it refused, did not connect or answer in time, or another holder
   * became known meanwhile (an address that stopped answering is left at once for its successor).
   */
  private Reached reach(Selector selector, Holder h, long deadline, String version) {
    byte[] preamble = route.handshake().say(h.term(), version);
    if (preamble == null) {
      return new Reached(null, "unknown", false); // the agent does not know its group yet
    }
    SocketChannel c = null;
    String result = "unreachable";
    try {
      c = SocketChannel.open();
      c.configureBlocking(false);
      c.setOption(StandardSocketOptions.TCP_NODELAY, true);
      if (route.bindHost() != null) {
        c.bind(new InetSocketAddress(route.bindHost(), 0));
      }
      SelectionKey key = c.register(selector, 0);
      result = connect(c, key, h, deadline);
      if (result == null) {
        result = ask(c, key, h, preamble, deadline);
      }
      if (result != null) {
        return new Reached(null, result, false);
      }
      key.cancel();
      selector.selectNow(); // off this selector before a loop's registers it
      result = "taken";
      SocketChannel taken = c;
      c = null;
      return new Reached(taken, result, version.equals(RelayHandshake.VERSION));
    } catch (IOException e) {
      log.debug(
          "relay {}: {}:{} did not take it: {}",
          publicPort,
          h.ip(),
          route.leaderOnlyPort(),
          e.toString());
      result = e instanceof java.net.ConnectException ? "unreachable" : SILENT;
      return new Reached(null, result, false);
    } finally {
      metrics.relayAttempt(publicPort, result.equals(SILENT) ? "silent" : result);
      if (log.isDebugEnabled()) {
        log.debug("relay {}: a try at {}: {}", publicPort, h.who(), result);
      }
      if (c != null) {
        Sockets.rst(c);
        try {
          selector.selectNow(); // deregisters the closed channel
        } catch (IOException e) {
          // the selector goes with the connection's thread
        }
      }
    }
  }

  /** Connects {@code c} to {@code h}'s leader-only gate: null once connected, else why not. */
  private String connect(SocketChannel c, SelectionKey key, Holder h, long deadline)
      throws IOException {
    long started = System.nanoTime();
    if (c.connect(new InetSocketAddress(h.ip(), route.leaderOnlyPort()))) {
      return null;
    }
    String gaveUp = await(key, SelectionKey.OP_CONNECT, h, started + connectNanos, deadline);
    if (gaveUp == null) {
      c.finishConnect();
    }
    return gaveUp;
  }

  /**
   * Says the preamble and reads the gate's one-byte answer: null when it took the connection, else
   * why not ({@link #SILENT} when it ended the connection without a word).
   */
  private String ask(SocketChannel c, SelectionKey key, Holder h, byte[] preamble, long deadline)
      throws IOException {
    ByteBuffer out = ByteBuffer.wrap(preamble);
    c.write(out); // a fresh socket's send buffer takes the 320 bytes at most of a preamble
    if (out.hasRemaining()) {
      throw new IOException("the preamble did not fit a fresh socket's buffer");
    }
    ByteBuffer answer = ByteBuffer.allocate(1);
    long asked = System.nanoTime();
    while (answer.hasRemaining()) {
      if (c.read(answer) < 0) {
        return SILENT;
      }
      if (answer.hasRemaining()) {
        String gaveUp = await(key, SelectionKey.OP_READ, h, asked + answerNanos, deadline);
        if (gaveUp != null) {
          return gaveUp;
        }
      }
    }
    return answer.get(0) == Gate.ACCEPTED ? null : "refused";
  }

  /**
   * Waits for {@code ops} on {@code key} in short slices; null once ready, else why it gave up:
   * {@code abandoned} (another holder became known) or {@code unreachable} (past {@code giveUpAt}
   * or the connection's own deadline).
   */
  private String await(SelectionKey key, int ops, Holder h, long giveUpAt, long deadline)
      throws IOException {
    Selector selector = key.selector();
    key.interestOps(ops);
    try {
      while (true) {
        selector.selectedKeys().clear();
        if (selector.select(POLL_MILLIS) > 0) {
          return null;
        }
        long now = System.nanoTime();
        Holder current = holder();
        if (current != null && !current.equals(h)) {
          return "abandoned";
        }
        if (now - giveUpAt >= 0 || now - deadline >= 0) {
          return "unreachable";
        }
      }
    } finally {
      key.interestOps(0);
    }
  }

  /** Resets the connections relayed now and stops the relay's loops. */
  public void close() {
    loops.forEach(GateLoop::stop);
  }
}
