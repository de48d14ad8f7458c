package dev.baton.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * A pooled client connection that keeps writing: one {@link ByteRecorder#frame} every period
 * through a gate, its echoes read and dropped, until the connection breaks or it is closed. What an
 * application behind a demoted gate must never see is exactly such a writer's late frames.
 */
public final class StampedWriter implements AutoCloseable {

  private final Socket socket;
  private final Thread writer;
  private final Thread reader;
  private volatile boolean closed;
  private volatile boolean broken;
  private volatile long written;

  private StampedWriter(int port, Duration every) throws IOException {
    socket = new Socket(InetAddress.getLoopbackAddress(), port);
    socket.setTcpNoDelay(true);
    long periodNanos = every.toNanos();
    writer =
        new Thread(
            () -> {
              try {
                OutputStream out = socket.getOutputStream();
                while (!closed) {
                  out.write(ByteRecorder.frame());
                  written++;
                  LockSupport.parkNanos(periodNanos);
                }
              } catch (IOException e) {
                broken = true;
              }
            },
            "stamped-writer-" + port);
    reader =
        new Thread(
            () -> {
              try {
                InputStream in = socket.getInputStream();
                byte[] b = new byte[4096];
                while (in.read(b) >= 0) {
                  // echoes: dropped
                }
                broken = true;
              } catch (IOException e) {
                broken = true;
              }
            },
            "stamped-reader-" + port);
    writer.setDaemon(true);
    reader.setDaemon(true);
    writer.start();
    reader.start();
  }

  /** Connects to {@code port} on loopback and writes a frame every {@code every}. */
  public static StampedWriter start(int port, Duration every) {
    try {
      return new StampedWriter(port, every);
    } catch (IOException e) {
      throw new IllegalStateException("cannot connect to " + port, e);
    }
  }

  /** Whether the connection was reset or closed by the other side. */
  public boolean broken() {
    return broken;
  }

  public long written() {
    return written;
  }

  @Override
  public void close() {
    closed = true;
    try {
      socket.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
