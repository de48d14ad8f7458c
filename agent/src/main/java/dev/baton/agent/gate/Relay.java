package dev.baton.agent.gate;

import dev.baton.agent.config.GateRoute;
import dev.baton.agent.leadership.LeadershipView;
import dev.baton.agent.metrics.AgentMetrics;
import dev.baton.agent.threads.AgentThreads;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
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
 * connection, so a gate that just shut costs a retry against the next holder, never a client byte;
 * while no holder is known (a hand-over), the connection waits, unread, for up to {@code holdFor},
 * and is reset only after that.
 *
 * <p>The relay decides nothing about exclusivity: the leader's gate does, as for a direct
 * connection, and cuts a relayed connection with the others when it shuts (the reset travels back
 * through the pipe).
 *
 * <p>Finding the leader's gate takes a thread per connection, a blocking connect and a one-byte
 * answer, and at most {@link #MAX_REACHING} at once (more are reset): it lasts milliseconds, or the
 * seconds of a hand-over. Once the leader's gate took the connection, both ends go to the relay's
 * event loops ({@link GateLoop}), as a gate's connections do, and hold no thread: idle relayed
 * connections cost a few KiB each, up to {@link #MAX_RELAYED}.
 */
public final class Relay {

  private static final Logger log = LoggerFactory.getLogger(Relay.class);
  private static final int CONNECT_TIMEOUT_MILLIS = 500;
  private static final int ANSWER_TIMEOUT_MILLIS = 1000;
  private static final long POLL_MILLIS = 5;

  /** A holder whose gate refused is tried again after this: its gate may open a little later. */
  private static final long SAME_AGAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private static final long STACK_BYTES = 1L << 18;

  /** Connections looking for the leader's gate at once (a thread each); more are reset. */
  static final int MAX_REACHING = 64;

  /** Connections relayed at once (no thread, a few KiB each); more are reset. */
  static final int MAX_RELAYED = 4096;

  private static final int LOOPS = 2;

  private final int publicPort;
  private final int leaderOnlyPort;
  private final RelayHandshake handshake;
  private final Supplier<LeadershipView> leadership;
  private final Duration holdFor;
  private final AgentMetrics metrics;
  private final String bindHost;
  private final ExecutorService threads;
  private final List<GateLoop> loops = new ArrayList<>();
  private final AtomicInteger relayed = new AtomicInteger();
  private final AtomicInteger next = new AtomicInteger();

  /**
   * @param leaderOnlyPort the port of every agent's leader-only gate
   * @param handshake what that gate expects first
   * @param holdFor how long a connection may wait for a leader's gate before it is reset
   * @param bindHost the address relayed connections leave from (the pod's, which the leader-only
   *     gate's network policy admits); null: the system's choice
   */
  public Relay(
      int publicPort,
      int leaderOnlyPort,
      RelayHandshake handshake,
      Supplier<LeadershipView> leadership,
      Duration holdFor,
      String bindHost,
      AgentMetrics metrics,
      AgentThreads agentThreads) {
    this.publicPort = publicPort;
    this.leaderOnlyPort = leaderOnlyPort;
    this.handshake = handshake;
    this.leadership = leadership;
    this.holdFor = holdFor;
    this.metrics = metrics;
    this.bindHost = bindHost;
    this.threads =
        agentThreads.bounded("baton-agent-relay-" + publicPort, MAX_REACHING, STACK_BYTES);
    GateRoute route = new GateRoute(publicPort, "leader", leaderOnlyPort);
    java.util.concurrent.Semaphore pending =
        new java.util.concurrent.Semaphore(GateLimits.DEFAULT.pending());
    try {
      for (int i = 0; i < LOOPS; i++) {
        loops.add(
            new GateLoop(
                "baton-agent-relay-" + publicPort + "-loop-" + i,
                route,
                null,
                null,
                now -> true, // the leader's gate decides; a reset there travels back through
                relayed::decrementAndGet,
                GateLimits.DEFAULT,
                pending,
                agentThreads));
      }
    } catch (IOException e) {
      loops.forEach(GateLoop::stop);
      throw new IllegalStateException("relay " + publicPort + ": no event loop: " + e, e);
    }
    loops.forEach(GateLoop::start);
  }

  /** From the gate's accepting thread: carries {@code client} on a thread of its own. */
  public void take(SocketChannel client) {
    if (relayed.get() >= MAX_RELAYED) {
      metrics.relay(publicPort, "refused");
      Sockets.rst(client);
      return;
    }
    try {
      threads.execute(() -> carry(client));
    } catch (RuntimeException e) {
      metrics.relay(publicPort, "refused");
      Sockets.rst(client);
    }
  }

  private void carry(SocketChannel channel) {
    long deadline = System.nanoTime() + holdFor.toNanos();
    try {
      channel.configureBlocking(true);
      channel.socket().setTcpNoDelay(true);
      String refusedBy = null;
      long refusedAt = 0;
      while (true) {
        LeadershipView v = leadership.get();
        String ip = v.leaderIp();
        String who = ip == null ? null : ip + " " + v.leaderTerm();
        if (who != null
            && (!who.equals(refusedBy) || System.nanoTime() - refusedAt > SAME_AGAIN_NANOS)) {
          SocketChannel leader = reach(ip, v.leaderTerm());
          if (leader != null) {
            metrics.relay(publicPort, "relayed");
            channel.configureBlocking(false);
            leader.configureBlocking(false);
            relayed.incrementAndGet();
            loops.get(Math.floorMod(next.getAndIncrement(), loops.size())).carry(channel, leader);
            return;
          }
          // That gate shut, or is not there yet: the next holder, or this one a little later.
          refusedBy = who;
          refusedAt = System.nanoTime();
        }
        if (System.nanoTime() - deadline >= 0) {
          break;
        }
        Thread.sleep(POLL_MILLIS);
      }
      log.debug("relay {}: no leader's gate took a connection within {}", publicPort, holdFor);
    } catch (IOException e) {
      log.debug("relay {}: {}", publicPort, e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    metrics.relay(publicPort, "refused");
    Sockets.rst(channel);
  }

  /**
   * A connection to the leader's gate that it took for the holder of {@code term}, or null when it
   * did not.
   */
  private SocketChannel reach(String ip, long term) {
    byte[] preamble = handshake.say(term);
    if (preamble == null) {
      return null; // the agent does not know its group yet
    }
    SocketChannel c = null;
    try {
      c = SocketChannel.open();
      Socket s = c.socket();
      s.setTcpNoDelay(true);
      if (bindHost != null) {
        s.bind(new InetSocketAddress(bindHost, 0));
      }
      s.connect(new InetSocketAddress(ip, leaderOnlyPort), CONNECT_TIMEOUT_MILLIS);
      s.getOutputStream().write(preamble);
      s.setSoTimeout(ANSWER_TIMEOUT_MILLIS);
      if (s.getInputStream().read() == Gate.ACCEPTED) {
        s.setSoTimeout(0);
        return c;
      }
    } catch (IOException e) {
      log.debug(
          "relay {}: {}:{} did not take it: {}", publicPort, ip, leaderOnlyPort, e.toString());
    }
    Sockets.rst(c);
    return null;
  }

  /** Resets the connections relayed now and stops the relay's loops. */
  public void close() {
    loops.forEach(GateLoop::stop);
  }
}
