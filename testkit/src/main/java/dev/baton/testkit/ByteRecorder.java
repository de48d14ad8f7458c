package dev.baton.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The applications behind the gates of one group, one per pod, that record every byte's arrival:
 * what reached an application is the only evidence of what a gate did that a test can trust,
 * whichever process the gate runs in. Each application echoes what it reads.
 *
 * <p>Clients write stamped frames ({@link #frame}: a marker and the {@link System#nanoTime()} at
 * which the frame was written, this JVM's clock, which every process of the machine shares). A
 * connection that starts with anything else is recorded by its arrivals alone.
 *
 * <p>The check, {@link #violations}: a connection X to pod P's application, first reached at {@code
 * a}, carried a frame written at {@code s}; another pod Q's application was first reached on a
 * connection Y at {@code b}, with {@code a < b < s}. Then P's gate relayed on X both before {@code
 * b} and after it (a frame cannot be relayed before it is written), while Q's gate had relayed by
 * {@code b}: two gates forwarding at one instant, or P's gate relaying after a later gate opened. A
 * gate cut resets every connection it forwards, so on a legitimate hand-over X is gone before Q
 * opens, and every frame it carried was written before that. No scheduling delay can make this fire
 * falsely: {@code s} is taken before the frame exists and {@code b} after it arrived.
 */
public final class ByteRecorder {

  /** The first eight bytes of every frame: "BATONRX1". */
  public static final long MARKER = 0x4241544F4E525831L;

  public static final int FRAME_BYTES = 16;

  private final List<Connection> connections = new ArrayList<>();
  private final List<App> apps = new ArrayList<>();
  private final List<HandOver> handOvers = new ArrayList<>();

  /** A hand-over a test declared: leadership moves from one pod to another, with no way back. */
  private record HandOver(String from, String to, long declaredAt) {}

  /**
   * Declares that leadership moves now from {@code from} to {@code to}, and does not come back in
   * this test: then no connection may reach {@code from}'s application once {@code to}'s was first
   * reached after this call. (The check below alone cannot see an old gate that opened again for
   * new connections while the new one's clients were idle.)
   */
  public synchronized void handOver(String from, String to) {
    handOvers.add(new HandOver(from, to, System.nanoTime()));
  }

  /** One frame, stamped now. */
  public static byte[] frame() {
    return ByteBuffer.allocate(FRAME_BYTES).putLong(MARKER).putLong(System.nanoTime()).array();
  }

  /** Starts the application of {@code pod}, on a free loopback port. */
  public synchronized App app(String pod) {
    App a = new App(pod);
    apps.add(a);
    return a;
  }

  /** What reached one application on one connection. */
  public static final class Connection {
    final String pod;
    final long firstArrival;
    private final List<Long> sent = new ArrayList<>();
    private boolean framed = true;

    Connection(String pod, long firstArrival) {
      this.pod = pod;
      this.firstArrival = firstArrival;
    }

    synchronized List<Long> sent() {
      return List.copyOf(sent);
    }

    synchronized void add(long stamp) {
      sent.add(stamp);
    }

    @Override
    public String toString() {
      return pod + "@" + firstArrival;
    }
  }

  /**
   * Every frame that reached a pod's application after another pod's application was first reached
   * on a later connection; empty when the gates were exclusive throughout.
   */
  public List<String> violations() {
    List<Connection> all;
    List<HandOver> declared;
    synchronized (this) {
      all = List.copyOf(connections);
      declared = List.copyOf(handOvers);
    }
    List<String> out = new ArrayList<>();
    for (HandOver h : declared) {
      long b =
          all.stream()
              .filter(c -> c.pod.equals(h.to()) && c.firstArrival - h.declaredAt() > 0)
              .mapToLong(c -> c.firstArrival)
              .min()
              .orElse(Long.MAX_VALUE);
      for (Connection x : all) {
        if (x.pod.equals(h.from()) && b != Long.MAX_VALUE && x.firstArrival - b > 0) {
          out.add(
              "a connection reached "
                  + h.from()
                  + "'s application at "
                  + x.firstArrival
                  + ", "
                  + (x.firstArrival - b) / 1_000_000
                  + " ms after "
                  + h.to()
                  + "'s was first reached: the old gate opened again");
        }
      }
    }
    for (Connection x : all) {
      List<Long> sent = x.sent();
      for (Connection y : all) {
        if (y.pod.equals(x.pod) || y.firstArrival - x.firstArrival <= 0) {
          continue;
        }
        long late = sent.stream().filter(s -> s - y.firstArrival > 0).count();
        if (late > 0) {
          long last = sent.stream().mapToLong(Long::longValue).max().orElseThrow();
          out.add(
              late
                  + " frame(s) reached "
                  + x.pod
                  + " on a connection first reached at "
                  + x.firstArrival
                  + " though written after "
                  + y.pod
                  + "'s application was reached at "
                  + y.firstArrival
                  + " (the last written "
                  + (last - y.firstArrival) / 1_000_000
                  + " ms after it)");
        }
      }
    }
    return out;
  }

  /** How many frames violate the check (each counted once). */
  public long lateFrames() {
    List<Connection> all;
    synchronized (this) {
      all = List.copyOf(connections);
    }
    long late = 0;
    for (Connection x : all) {
      long earliestLater = Long.MAX_VALUE;
      boolean any = false;
      for (Connection y : all) {
        if (!y.pod.equals(x.pod) && y.firstArrival - x.firstArrival > 0) {
          if (!any || y.firstArrival - earliestLater < 0) {
            earliestLater = y.firstArrival;
          }
          any = true;
        }
      }
      if (any) {
        long bound = earliestLater;
        late += x.sent().stream().filter(s -> s - bound > 0).count();
      }
    }
    return late;
  }

  /** The stamp of a frame made by {@link #frame}. */
  public static long stampOf(byte[] frame) {
    return ByteBuffer.wrap(frame).getLong(8);
  }

  /**
   * The pod whose application the frame stamped {@code stamp} reached, or null when none did: a
   * connection reset before its answer either never reached an application, or was cut after it did
   * (a hand-over), and only this tells the two apart.
   */
  public String reachedBy(long stamp) {
    // The application records a frame as it reads it, which may be a moment after its client saw
    // the connection reset: a short grace before saying none did.
    for (int tries = 0; tries < 20; tries++) {
      List<Connection> all;
      synchronized (this) {
        all = List.copyOf(connections);
      }
      for (Connection c : all) {
        if (c.sent().contains(stamp)) {
          return c.pod;
        }
      }
      try {
        Thread.sleep(10);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return null;
      }
    }
    return null;
  }

  /**
   * When ({@link System#nanoTime()}) the first byte of the earliest connection that reached {@code
   * pod}'s application after {@code since} arrived; 0 when none did.
   */
  public long firstArrival(String pod, long since) {
    List<Connection> all;
    synchronized (this) {
      all = List.copyOf(connections);
    }
    return all.stream()
        .filter(c -> c.pod.equals(pod) && c.firstArrival - since > 0)
        .mapToLong(c -> c.firstArrival)
        .reduce((a, b) -> a - b < 0 ? a : b)
        .orElse(0);
  }

  /** How many frames reached {@code pod}'s application. */
  public long frames(String pod) {
    List<Connection> all;
    synchronized (this) {
      all = List.copyOf(connections);
    }
    return all.stream().filter(c -> c.pod.equals(pod)).mapToLong(c -> c.sent().size()).sum();
  }

  private synchronized void add(Connection c) {
    connections.add(c);
  }

  /** Stops every application. */
  public synchronized void close() {
    apps.forEach(App::close);
  }

  /** One pod's application: echoes, and records. */
  public final class App implements AutoCloseable {

    private final String pod;
    private final ServerSocket server;
    private final ExecutorService threads =
        Executors.newCachedThreadPool(
            r -> {
              Thread t = new Thread(r, "recorded-app");
              t.setDaemon(true);
              return t;
            });

    App(String pod) {
      this.pod = pod;
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
          threads.execute(() -> serve(s));
        } catch (IOException e) {
          return;
        }
      }
    }

    private void serve(Socket s) {
      try (s;
          InputStream in = s.getInputStream();
          OutputStream out = s.getOutputStream()) {
        byte[] b = new byte[8192];
        ByteBuffer pending = ByteBuffer.allocate(FRAME_BYTES);
        Connection c = null;
        int n;
        while ((n = in.read(b)) >= 0) {
          if (n == 0) {
            continue;
          }
          if (c == null) {
            c = new Connection(pod, System.nanoTime());
            add(c);
          }
          record(c, pending, b, n);
          out.write(b, 0, n);
        }
      } catch (IOException e) {
        // the gate reset it, or the client went away
      }
    }

    private void record(Connection c, ByteBuffer pending, byte[] b, int n) {
      for (int i = 0; i < n && c.framed; i++) {
        pending.put(b[i]);
        if (!pending.hasRemaining()) {
          pending.flip();
          long marker = pending.getLong();
          long stamp = pending.getLong();
          pending.clear();
          if (marker != MARKER) {
            synchronized (c) {
              c.framed = false; // not a stamped client: its arrivals alone count
            }
          } else {
            c.add(stamp);
          }
        }
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
}
