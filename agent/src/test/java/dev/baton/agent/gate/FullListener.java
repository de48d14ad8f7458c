package dev.baton.agent.gate;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.List;

/**
 * A loopback listener that never accepts, its accept queue filled: Linux drops the next SYN, so a
 * connection to it waits (its next SYN a second later). An app a gate cannot reach yet, without a
 * remote address that drops packets.
 */
final class FullListener implements AutoCloseable {

  private final ServerSocket server;
  private final List<Socket> queued = new ArrayList<>();

  FullListener() throws IOException {
    server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
    for (int i = 0; i < 16; i++) {
      Socket s = new Socket();
      try {
        s.connect(new InetSocketAddress(server.getInetAddress(), server.getLocalPort()), 300);
        queued.add(s);
      } catch (SocketTimeoutException full) {
        s.close();
        return;
      }
    }
    close();
    throw new IllegalStateException("16 connections and the accept queue was not full");
  }

  int port() {
    return server.getLocalPort();
  }

  @Override
  public void close() throws IOException {
    for (Socket s : queued) {
      s.close();
    }
    server.close();
  }
}
