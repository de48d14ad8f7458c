package dev.baton.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A TCP forwarder between one client and a server, that a test can stop forwarding: while paused,
 * connections stay open and bytes wait on both sides, as across a network partition that neither
 * end notices. New connections are accepted but wait too.
 */
public final class PausableProxy implements AutoCloseable {

  private final ServerSocket listener;
  private volatile InetSocketAddress target;
  private final List<Socket> sockets = new CopyOnWriteArrayList<>();
  private final Object gate = new Object();
  private volatile boolean paused;
  private volatile boolean closed;

  private PausableProxy(InetSocketAddress target) throws IOException {
    this.target = target;
    this.listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    Thread accept = new Thread(this::acceptLoop, "proxy-accept-" + listener.getLocalPort());
    accept.setDaemon(true);
    accept.start();
  }

  /** Forwards a local port to {@code host:port}. */
  public static PausableProxy to(String host, int port) {
    try {
      return new PausableProxy(new InetSocketAddress(host, port));
    } catch (IOException e) {
      throw new IllegalStateException("cannot open a proxy port", e);
    }
  }

  public int port() {
    return listener.getLocalPort();
  }

  /**
   * Forwards to {@code host:port} from now on, and breaks every connection it carries, as clients
   * of a Redis Sentinel find the promoted replica: their connections to the old master break, and
   * they connect again to the address that now names the master.
   */
  public void retarget(String host, int port) {
    target = new InetSocketAddress(host, port);
    sockets.forEach(PausableProxy::closeQuietly);
    sockets.clear();
  }

  /** Stops forwarding; what is sent meanwhile arrives after {@link #resume()}. */
  public void pause() {
    paused = true;
  }

  public void resume() {
    synchronized (gate) {
      paused = false;
      gate.notifyAll();
    }
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = listener.accept();
        Socket server = new Socket();
        try {
          server.connect(target, 2000);
        } catch (IOException e) {
          closeQuietly(client); // the server is down: the client sees its connection close
          continue;
        }
        client.setTcpNoDelay(true);
        server.setTcpNoDelay(true);
        sockets.add(client);
        sockets.add(server);
        pump(client, server);
        pump(server, client);
      } catch (IOException e) {
        // the listener closed, or a socket option failed: the loop's condition decides
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t =
        new Thread(
            () -> {
              byte[] buffer = new byte[16 * 1024];
              try (InputStream in = from.getInputStream();
                  OutputStream out = to.getOutputStream()) {
                while (true) {
                  awaitForwarding();
                  int n = in.read(buffer);
                  if (n < 0) {
                    break;
                  }
                  awaitForwarding();
                  out.write(buffer, 0, n);
                  out.flush();
                }
              } catch (IOException | InterruptedException e) {
                // one side closed
              } finally {
                closeQuietly(from);
                closeQuietly(to);
              }
            },
            "proxy-pump");
    t.setDaemon(true);
    t.start();
  }

  private void awaitForwarding() throws InterruptedException {
    synchronized (gate) {
      while (paused && !closed) {
        gate.wait(100);
      }
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException e) {
      // already closed
    }
  }

  @Override
  public void close() {
    closed = true;
    resume();
    try {
      listener.close();
    } catch (IOException e) {
      // already closed
    }
    sockets.forEach(PausableProxy::closeQuietly);
  }
}
