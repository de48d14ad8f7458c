package dev.baton.agent.gate;

import dev.baton.agent.leadership.LeadershipView;
import dev.baton.agent.metrics.AgentMetrics;
import dev.baton.agent.threads.AgentThreads;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.TimeUnit;
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
 * <p>Blocking sockets and two threads per relayed connection (small stacks): the relay carries
 * connections for the seconds of a hand-over and those kube-proxy still sends to a follower, not
 * the group's steady traffic, which goes to the leader's own gate once the Service has caught up.
 */
public final class Relay {

  private static final Logger log = LoggerFactory.getLogger(Relay.class);
  private static final int CONNECT_TIMEOUT_MILLIS = 500;
  private static final int ANSWER_TIMEOUT_MILLIS = 1000;
  private static final long POLL_MILLIS = 5;

  /** A holder whose gate refused is tried again after this: its gate may open a little later. */
  private static final long SAME_AGAIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  private static final long STACK_BYTES = 1L << 18;

  /**
   * Connections one gate relays at once; more are reset. Two threads each: the bound keeps a flood
   * of connections to a follower from taking the agent's memory (about 180 KiB each).
   */
  static final int MAX_RELAYED = 512;

  private final int publicPort;
  private final int leaderOnlyPort;
  private final RelayHandshake handshake;
  private final Supplier<LeadershipView> leadership;
  private final Duration holdFor;
  private final AgentMetrics metrics;
  private final ExecutorService threads;
  private final ExecutorService upstream;

  /**
   * @param leaderOnlyPort the port of every agent's leader-only gate
   * @param handshake what that gate expects first
   * @param holdFor how long a connection may wait for a leader's gate before it is reset
   */
  public Relay(
      int publicPort,
      int leaderOnlyPort,
      RelayHandshake handshake,
      Supplier<LeadershipView> leadership,
      Duration holdFor,
      AgentMetrics metrics,
      AgentThreads agentThreads) {
    this.publicPort = publicPort;
    this.leaderOnlyPort = leaderOnlyPort;
    this.handshake = handshake;
    this.leadership = leadership;
    this.holdFor = holdFor;
    this.metrics = metrics;
    this.threads =
        agentThreads.bounded("baton-agent-relay-" + publicPort, MAX_RELAYED, STACK_BYTES);
    this.upstream =
        agentThreads.bounded("baton-agent-relay-" + publicPort + "-up", MAX_RELAYED, STACK_BYTES);
  }

  /** From the gate's accepting thread: carries {@code client} on a thread of its own. */
  public void take(SocketChannel client) {
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
      Socket client = channel.socket();
      client.setTcpNoDelay(true);
      String refusedBy = null;
      long refusedAt = 0;
      while (true) {
        LeadershipView v = leadership.get();
        String ip = v.leaderIp();
        String who = ip == null ? null : ip + " " + v.leaderTerm();
        if (who != null
            && (!who.equals(refusedBy) || System.nanoTime() - refusedAt > SAME_AGAIN_NANOS)) {
          Socket leader = reach(ip, v.leaderTerm());
          if (leader != null) {
            metrics.relay(publicPort, "relayed");
            pipe(client, leader);
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
  private Socket reach(String ip, long term) {
    byte[] preamble = handshake.say(term);
    if (preamble == null) {
      return null; // the agent does not know its group yet
    }
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      s.connect(new InetSocketAddress(ip, leaderOnlyPort), CONNECT_TIMEOUT_MILLIS);
      s.getOutputStream().write(preamble);
      s.setSoTimeout(ANSWER_TIMEOUT_MILLIS);
      if (s.getInputStream().read() == Gate.ACCEPTED) {
        s.setSoTimeout(0);
        return s;
      }
    } catch (IOException e) {
      log.debug(
          "relay {}: {}:{} did not take it: {}", publicPort, ip, leaderOnlyPort, e.toString());
    }
    reset(s);
    return null;
  }

  /**
   * Both directions until both ended; a reset or error on either side resets both, so a cut at the
   * leader's gate reaches the client as a reset, as a direct connection's would.
   */
  private void pipe(Socket client, Socket leader) {
    java.util.concurrent.Future<?> up = upstream.submit(() -> copy(client, leader));
    copy(leader, client);
    try {
      up.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (java.util.concurrent.ExecutionException e) {
      // the copy resets both sides itself
    }
    close(client);
    close(leader);
  }

  private static void copy(Socket from, Socket to) {
    byte[] buffer = new byte[8192];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      int n;
      while ((n = in.read(buffer)) >= 0) {
        out.write(buffer, 0, n);
      }
      to.shutdownOutput();
    } catch (IOException e) {
      reset(from);
      reset(to);
    }
  }

  private static void reset(Socket s) {
    try {
      if (!s.isClosed()) {
        s.setSoLinger(true, 0);
      }
    } catch (IOException e) {
      // not connected: nothing to reset
    }
    close(s);
  }

  private static void close(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
