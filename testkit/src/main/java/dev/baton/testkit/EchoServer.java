package dev.baton.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An application behind an agent's gate: echoes every byte back, on loopback, a thread per
 * connection. The agent's tests and benchmark both put one behind each simulated pod's gate.
 */
public final class EchoServer implements AutoCloseable {

  private final ServerSocket server;
  private final ExecutorService threads =
      Executors.newCachedThreadPool(
          r -> {
            Thread t = new Thread(r, "echo-server");
            t.setDaemon(true);
            return t;
          });

  public EchoServer() {
    try {
      server = new ServerSocket(0, 128, InetAddress.getLoopbackAddress());
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    threads.execute(this::accept);
  }

  public int port() {
    return server.getLocalPort();
  }

  private void accept() {
    while (!server.isClosed()) {
      try {
        Socket s = server.accept();
        s.setTcpNoDelay(true);
        threads.execute(() -> echo(s));
      } catch (IOException e) {
        return;
      }
    }
  }

  private static void echo(Socket s) {
    try (s;
        InputStream in = s.getInputStream();
        OutputStream out = s.getOutputStream()) {
      byte[] b = new byte[8192];
      int n;
      while ((n = in.read(b)) >= 0) {
        out.write(b, 0, n);
      }
    } catch (IOException e) {
      // the peer went away
    }
  }

  @Override
  public void close() {
    try {
      server.close();
    } catch (IOException e) {
      // closing anyway
    }
    threads.shutdownNow();
  }
}
