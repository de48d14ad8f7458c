package dev.baton.agent.http;

import dev.baton.agent.eventloop.EventLoop;
import dev.baton.agent.threads.AgentThreads;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The probes' port ({@code BATON_AGENT_HEALTH_LISTEN}): {@code GET /healthz}, {@code /readyz} and
 * {@code /metrics}, answered on one event loop, one request per connection. The port is reachable
 * from the whole cluster (the kubelet probes it from the node), so nothing a client does may hold
 * it: a request must arrive whole within {@link #REQUEST_DEADLINE_NANOS} and {@link #MAX_REQUEST}
 * bytes; at most {@link #MAX_PER_ADDRESS} connections from one address are open at once (the
 * kubelet probes from the node's own); and at most {@link #MAX_CONNECTIONS} in all, the oldest
 * unanswered one closed to make room for a new one. A thread per request, as a general HTTP server
 * has it, let slow request lines hold every thread while the kubelet's probes waited.
 */
final class ProbeServer implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(ProbeServer.class);

  static final int MAX_REQUEST = 4096;
  static final int MAX_CONNECTIONS = 512;
  static final int MAX_PER_ADDRESS = 32;
  static final long REQUEST_DEADLINE_NANOS = 2_000_000_000L;

  /** What a probe answers: status, content type and body. */
  record Answer(int status, String type, byte[] body) {}

  private final Function<String, Answer> answers;
  private final ServerSocketChannel server;
  private final Selector selector;
  private final Thread thread;
  private volatile boolean stopped;
  // The loop thread's alone; in the order they were accepted:
  private final LinkedHashMap<SocketChannel, Exchange> open = new LinkedHashMap<>();
  private final Map<InetAddress, Integer> perAddress = new HashMap<>();

  /** One connection: its request as read so far, then its answer as written so far. */
  private static final class Exchange {
    final InetAddress from;
    final long started = System.nanoTime();
    ByteBuffer in = ByteBuffer.allocate(512);
    ByteBuffer out;

    Exchange(InetAddress from) {
      this.from = from;
    }
  }

  /**
   * Binds at once, so that a port in use stops the agent before anything else starts.
   *
   * @param answers the answer to a GET of a path
   */
  ProbeServer(InetSocketAddress address, Function<String, Answer> answers, AgentThreads threads) {
    this.answers = answers;
    try {
      selector = Selector.open();
      server = ServerSocketChannel.open();
      server.setOption(StandardSocketOptions.SO_REUSEADDR, true);
      server.bind(address, 128);
      server.configureBlocking(false);
      server.register(selector, SelectionKey.OP_ACCEPT);
    } catch (IOException e) {
      throw new IllegalStateException(
          "the probes cannot listen on " + address + ": " + e.getMessage(), e);
    }
    thread = threads.thread("baton-agent-probes", this::run);
    thread.start();
  }

  int port() {
    return server.socket().getLocalPort();
  }

  private void run() {
    try {
      while (!stopped) {
        selector.select(open.isEmpty() ? 0 : 250);
        EventLoop.eachReady(
            selector,
            key -> {
              if (key.isAcceptable()) {
                accept();
              } else {
                serve(key);
              }
            });
        expire();
      }
    } catch (IOException | RuntimeException e) {
      if (!stopped) {
        log.error("the probes' loop failed: {}", e.toString());
      }
    } finally {
      open.keySet().forEach(ProbeServer::closeQuietly);
      closeQuietly(server);
      try {
        selector.close();
      } catch (IOException e) {
        // stopping anyway
      }
    }
  }

  /**
   * Takes what is waiting. Whatever one client's connection does (reset before it was taken, say)
   * costs that connection only, never the loop.
   */
  private void accept() {
    EventLoop.acceptWaiting(
        server,
        c -> {
          try {
            take(c);
          } catch (IOException e) {
            closeQuietly(c);
          }
        },
        e -> log.warn("the probes' port could not take a connection: {}", e.getMessage()));
  }

  private void take(SocketChannel c) throws IOException {
    InetAddress from = ((InetSocketAddress) c.getRemoteAddress()).getAddress();
    if (perAddress.getOrDefault(from, 0) >= MAX_PER_ADDRESS) {
      closeQuietly(c);
      return;
    }
    if (open.size() >= MAX_CONNECTIONS) {
      close(open.keySet().iterator().next()); // the oldest: its deadline is the nearest
    }
    c.configureBlocking(false);
    c.setOption(StandardSocketOptions.TCP_NODELAY, true);
    c.register(selector, SelectionKey.OP_READ);
    open.put(c, new Exchange(from));
    perAddress.merge(from, 1, Integer::sum);
  }

  private void serve(SelectionKey key) {
    SocketChannel c = (SocketChannel) key.channel();
    Exchange x = open.get(c);
    if (x == null) {
      closeQuietly(c);
      return;
    }
    try {
      if (x.out == null) {
        if (!read(c, x)) {
          return;
        }
        key.interestOps(SelectionKey.OP_WRITE);
      }
      c.write(x.out);
      if (!x.out.hasRemaining()) {
        close(c);
      }
    } catch (IOException e) {
      close(c);
    }
  }

  /** Reads what arrived; true once the request's head is complete and its answer ready. */
  private boolean read(SocketChannel c, Exchange x) throws IOException {
    if (!x.in.hasRemaining()) {
      if (x.in.capacity() >= MAX_REQUEST) {
        x.out = answer(431, "text/plain", "request too large\n".getBytes(StandardCharsets.UTF_8));
        return true;
      }
      ByteBuffer larger = ByteBuffer.allocate(Math.min(MAX_REQUEST, x.in.capacity() * 2));
      x.in.flip();
      larger.put(x.in);
      x.in = larger;
    }
    if (c.read(x.in) < 0) {
      close(c);
      return false;
    }
    String head = new String(x.in.array(), 0, x.in.position(), StandardCharsets.ISO_8859_1);
    if (!head.contains("\r\n\r\n") && !head.contains("\n\n")) {
      return false;
    }
    String[] requestLine = head.substring(0, head.indexOf('\n')).trim().split(" ");
    if (requestLine.length != 3 || !requestLine[0].equals("GET")) {
      x.out =
          answer(405, "text/plain", "only GET is served here\n".getBytes(StandardCharsets.UTF_8));
      return true;
    }
    String target = requestLine[1];
    int query = target.indexOf('?');
    Answer a;
    try {
      a = answers.apply(query < 0 ? target : target.substring(0, query));
    } catch (RuntimeException e) {
      log.warn("a probe failed: {}", e.toString());
      a = new Answer(500, "text/plain", "internal error\n".getBytes(StandardCharsets.UTF_8));
    }
    x.out = answer(a.status(), a.type(), a.body());
    return true;
  }

  private static ByteBuffer answer(int status, String type, byte[] body) {
    String head =
        "HTTP/1.1 "
            + status
            + " "
            + reason(status)
            + "\r\nContent-Type: "
            + type
            + "\r\nContent-Length: "
            + body.length
            + "\r\nConnection: close\r\n\r\n";
    byte[] h = head.getBytes(StandardCharsets.ISO_8859_1);
    ByteBuffer b = ByteBuffer.allocate(h.length + body.length);
    return b.put(h).put(body).flip();
  }

  private static String reason(int status) {
    return switch (status) {
      case 200 -> "OK";
      case 404 -> "Not Found";
      case 405 -> "Method Not Allowed";
      case 431 -> "Request Header Fields Too Large";
      case 500 -> "Internal Server Error";
      case 503 -> "Service Unavailable";
      default -> "Status";
    };
  }

  /** Closes the connections whose request or answer outlived the deadline. */
  private void expire() {
    long now = System.nanoTime();
    Iterator<Map.Entry<SocketChannel, Exchange>> it = open.entrySet().iterator();
    while (it.hasNext()) {
      Map.Entry<SocketChannel, Exchange> e = it.next();
      if (now - e.getValue().started <= REQUEST_DEADLINE_NANOS) {
        return; // the rest are younger
      }
      it.remove();
      forget(e.getValue().from);
      closeQuietly(e.getKey());
    }
  }

  private void close(SocketChannel c) {
    Exchange x = open.remove(c);
    if (x != null) {
      forget(x.from);
    }
    closeQuietly(c);
  }

  private void forget(InetAddress from) {
    perAddress.computeIfPresent(from, (k, n) -> n <= 1 ? null : n - 1);
  }

  private static void closeQuietly(java.nio.channels.Channel c) {
    try {
      c.close();
    } catch (IOException e) {
      // closing anyway
    }
  }

  @Override
  public void close() {
    stopped = true;
    selector.wakeup();
    try {
      thread.join(2000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
