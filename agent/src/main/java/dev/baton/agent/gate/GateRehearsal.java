package dev.baton.agent.gate;

import dev.baton.agent.config.GateRoute;
import dev.baton.agent.metrics.AgentMetrics;
import dev.baton.agent.threads.AgentThreads;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A connection forwarded at start through two scratch gates on loopback, a public one and a
 * leader-only one with a signed preamble, to a scratch echo: the path a new leader's gates take for
 * their first connections, run once before any is real. In an agent that never forwarded, the first
 * relayed connection after a promotion loaded and linked that path on the failover's clock (label
 * to first frame 40-47 ms for a fresh agent in the relay benchmark, 14-21 for one that had
 * forwarded before). Nothing the agent serves is touched: the gates, the echo and the metrics are
 * the rehearsal's own, closed before it returns.
 */
public final class GateRehearsal {

  private static final Logger log = LoggerFactory.getLogger(GateRehearsal.class);
  private static final int WAIT_MILLIS = 2000;

  private GateRehearsal() {}

  /** Forwards one connection through each kind of gate; whether both echoed. */
  public static boolean play(AgentThreads threads) {
    InetAddress loopback = InetAddress.getLoopbackAddress();
    try (ServerSocket echo = new ServerSocket(0, 4, loopback)) {
      Thread echoing = threads.thread("baton-agent-rehearsal-echo", () -> echo(echo));
      echoing.start();
      GateRoute route = new GateRoute(0, loopback.getHostAddress(), echo.getLocalPort());
      RelayHandshake signed = new RelayHandshake("rehearsal", 0, "rehearsal");
      signed.groupFrom(() -> "rehearsal");
      AgentMetrics metrics = new AgentMetrics();
      boolean both;
      String host = loopback.getHostAddress();
      try (Gate open = new Gate(route, Gate.Listening.scratch(host, null), metrics, threads);
          Gate leaderOnly =
              new Gate(route, Gate.Listening.scratch(host, signed), metrics, threads)) {
        open.opened(1);
        leaderOnly.opened(1);
        both = echoes(loopback, open.port(), null) & echoes(loopback, leaderOnly.port(), signed);
        // Both ended before the gates close, so that closing them cuts nothing (and says nothing).
        long giveUp = System.nanoTime() + WAIT_MILLIS * 1_000_000L;
        while ((open.live() > 0 || leaderOnly.live() > 0) && System.nanoTime() - giveUp < 0) {
          Thread.sleep(1);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return false;
      }
      return both;
    } catch (IOException | RuntimeException e) {
      log.debug("the gates' rehearsal did not run through: {}", e.toString());
      return false;
    }
  }

  /** A connection through the gate at {@code port}: a preamble first if {@code signed}. */
  private static boolean echoes(InetAddress loopback, int port, RelayHandshake signed)
      throws IOException {
    try (Socket s = new Socket(loopback, port)) {
      s.setSoTimeout(WAIT_MILLIS);
      s.setTcpNoDelay(true);
      OutputStream out = s.getOutputStream();
      InputStream in = s.getInputStream();
      if (signed != null) {
        out.write(signed.say(1));
        if (in.read() != Gate.ACCEPTED) {
          return false;
        }
      }
      byte[] frame = "rehearsal-frame!".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
      out.write(frame);
      if (signed != null && in.read() != Gate.PASSING) {
        return false;
      }
      return Arrays.equals(in.readNBytes(frame.length), frame);
    }
  }

  /** Echoes every connection, one at a time, until the server socket closes. */
  private static void echo(ServerSocket server) {
    while (!server.isClosed()) {
      try (Socket c = server.accept()) {
        c.setSoTimeout(WAIT_MILLIS);
        c.getInputStream().transferTo(c.getOutputStream());
      } catch (IOException e) {
        // the rehearsal ended, or its client went: the next one, if any
      }
    }
  }
}
