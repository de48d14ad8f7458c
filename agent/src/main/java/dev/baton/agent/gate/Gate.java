package dev.baton.agent.gate;

import dev.baton.agent.config.GateRoute;
import dev.baton.agent.leadership.Exclusive;
import dev.baton.agent.metrics.AgentMetrics;
import dev.baton.client.DaemonThreads;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One TCP gate: listens on a port of every interface and, while open, forwards each connection to
 * its target byte for byte. Closing resets every forwarded connection on both sides (RST: the
 * client fails at once and reconnects, through the Service, to the new leader) and refuses new ones
 * (accepted, then reset at once) until it opens again.
 */
public final class Gate implements Exclusive, AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(Gate.class);
  private static final int CONNECT_TIMEOUT_MILLIS = 1000;
  private static final int BUFFER = 16 * 1024;

  private final GateRoute route;
  private final AgentMetrics metrics;
  private final ServerSocket server;
  private final ExecutorService threads;
  private final Set<Forwarding> forwardings = new HashSet<>();
  private volatile boolean stopped;
  private boolean open; // guarded by this

  /**
   * Binds the port at once, so that a port in use stops the agent before anything else starts.
   *
   * @throws IllegalStateException naming the port when it cannot be bound
   */
  public Gate(GateRoute route, AgentMetrics metrics) {
    this.route = route;
    this.metrics = metrics;
    try {
      server = new ServerSocket();
      server.setReuseAddress(true);
      server.bind(new InetSocketAddress(route.listenPort()), 256);
    } catch (IOException e) {
      throw new IllegalStateException(
          "gate port " + route.listenPort() + " cannot be bound: " + e.getMessage(), e);
    }
    threads =
        Executors.newCachedThreadPool(
            DaemonThreads.named("baton-agent-gate-" + route.listenPort()));
    threads.execute(this::acceptLoop);
    log.info("gate {} listening, shut until this pod leads", route);
  }

  public GateRoute route() {
    return route;
  }

  public int port() {
    return server.getLocalPort();
  }

  @Override
  public synchronized void opened(long term) {
    open = true;
  }

  @Override
  public void closed(String reason) {
    List<Forwarding> cut;
    synchronized (this) {
      open = false;
      cut = List.copyOf(forwardings);
      forwardings.clear();
    }
    for (Forwarding f : cut) {
      f.reset();
      if (f.ended()) {
        metrics.gateEnded(route.listenPort());
      }
    }
    if (!cut.isEmpty()) {
      metrics.gateCut(route.listenPort(), cut.size());
      log.info("gate {}: {} connection(s) reset ({})", route, cut.size(), reason);
    }
  }

  public synchronized boolean isOpen() {
    return open;
  }

  private void acceptLoop() {
    while (!stopped) {
      Socket client;
      try {
        client = server.accept();
      } catch (IOException e) {
        if (!stopped) {
          log.warn("gate {}: accept failed: {}", route, e.getMessage());
        }
        continue;
      }
      Forwarding f = new Forwarding(client);
      synchronized (this) {
        if (!open) {
          f.reset();
          metrics.gateRefused(route.listenPort());
          continue;
        }
        forwardings.add(f);
      }
      metrics.gateAccepted(route.listenPort());
      threads.execute(f::connect);
    }
  }

  private synchronized boolean stillForwarding(Forwarding f) {
    return forwardings.contains(f);
  }

  private void done(Forwarding f) {
    if (f.ended()) {
      metrics.gateEnded(route.listenPort());
    }
    synchronized (this) {
      forwardings.remove(f);
    }
  }

  /** One client connection and its connection to the target. */
  private final class Forwarding {

    private final Socket client;
    private final Socket target = new Socket();
    private int pumpsLeft = 2;
    private boolean ended;

    /** True only on the first call: the connection is counted as ended once. */
    synchronized boolean ended() {
      boolean first = !ended;
      ended = true;
      return first;
    }

    Forwarding(Socket client) {
      this.client = client;
    }

    void connect() {
      try {
        client.setTcpNoDelay(true);
        target.setTcpNoDelay(true);
        target.connect(
            new InetSocketAddress(route.targetHost(), route.targetPort()), CONNECT_TIMEOUT_MILLIS);
      } catch (IOException e) {
        log.debug("gate {}: target not reachable: {}", route, e.getMessage());
        done(this);
        reset();
        return;
      }
      // A close may have passed while connecting: it reset the client, the target is new.
      if (!stillForwarding(this)) {
        reset();
        return;
      }
      threads.execute(() -> pump(client, target));
      pump(target, client);
    }

    private void pump(Socket from, Socket to) {
      byte[] buffer = new byte[BUFFER];
      try {
        InputStream in = from.getInputStream();
        OutputStream out = to.getOutputStream();
        int n;
        while ((n = in.read(buffer)) >= 0) {
          out.write(buffer, 0, n);
        }
        to.shutdownOutput(); // pass the half-close on
      } catch (IOException e) {
        reset(); // either side broke, or the gate closed: both sides go
        done(this);
        return;
      }
      boolean last;
      synchronized (this) {
        last = --pumpsLeft == 0;
      }
      if (last) {
        done(this);
        quietly(client);
        quietly(target);
      }
    }

    /** Closes both sides with RST (SO_LINGER 0), so the peers see a reset, not a clean end. */
    void reset() {
      rst(client);
      rst(target);
    }
  }

  private static void rst(Socket s) {
    try {
      if (!s.isClosed()) {
        s.setSoLinger(true, 0);
      }
    } catch (IOException e) {
      // not connected: nothing to reset
    }
    quietly(s);
  }

  private static void quietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  @Override
  public void close() {
    stopped = true;
    closed("the agent is stopping");
    try {
      server.close();
    } catch (IOException e) {
      // stopping anyway
    }
    threads.shutdownNow();
  }
}
