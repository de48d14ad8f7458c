package dev.baton.testkit;

import io.fabric8.mockwebserver.http.ByteString;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the embedded API server does that a real one does and Fabric8's mock does not, each switched
 * on by a test or benchmark: taking its time ({@link LatencyProfile}), refusing the first lists of
 * a resource while its storage initializes (429, as right after a CRD is created or the API server
 * restarted), and dropping the first watch requests of a resource (as a new pod's first connection
 * to the API server can time out). Applied by {@link KubeHttpServer}; read by tests through {@link
 * EmbeddedKubernetes}.
 */
final class ServerConditions implements AutoCloseable {

  /** The kinds of request a latency profile times differently. */
  enum Kind {
    POD_WRITE,
    RESOURCE_WRITE,
    OTHER_WRITE,
    READ
  }

  /** Something the conditions did to one request: when (System.nanoTime), what, to which. */
  record Seen(long atNanos, String what, String plural, String uri) {}

  static final String LIST_REFUSED = "list refused";
  static final String WATCH_DROPPED = "watch dropped";
  static final String WATCH_ASKED = "watch asked";

  private volatile LatencyProfile.Draws draws;
  private final Map<String, AtomicInteger> listRefusals = new ConcurrentHashMap<>();
  private final Map<String, AtomicInteger> watchDrops = new ConcurrentHashMap<>();
  private final List<Seen> seen = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService late =
      Executors.newSingleThreadScheduledExecutor(
          r -> {
            Thread t = new Thread(r, "mock-api-watch-events");
            t.setDaemon(true);
            return t;
          });

  void latency(LatencyProfile profile) {
    draws = profile == null ? null : profile.draws();
  }

  void refuseLists(String plural, int times) {
    listRefusals.put(plural, new AtomicInteger(times));
  }

  void dropWatches(String plural, int times) {
    watchDrops.put(plural, new AtomicInteger(times));
  }

  List<Seen> seen() {
    return List.copyOf(seen);
  }

  /**
   * What handling a request of each kind took lately once its hold was over (nanoseconds, a moving
   * average): the mock's own work, and its wait for a busy event loop. Guarded by this.
   */
  private final long[] handling = new long[Kind.values().length];

  /**
   * How long to hold a request before handling it, in nanoseconds; 0 without a profile. The drawn
   * latency is the whole of a real server's answer time, its own work included, so what this server
   * lately took to handle a request of the kind is taken off: a PATCH drawn at 16 ms is answered
   * about 16 ms after it arrived, not 16 ms plus the mock's work on a busy machine (which doubled
   * the profile's pod PATCH in the relay benchmark, 34 ms p50 where the profile's is 16).
   */
  long holdNanos(String method, String uri) {
    return timing(method, uri).holdNanos();
  }

  /**
   * A request's time as the profile drew it, and how long it is held before it is handled ({@link
   * #holdNanos}); both 0 without a profile.
   */
  record Timing(long drawnNanos, long holdNanos) {}

  Timing timing(String method, String uri) {
    LatencyProfile.Draws d = draws;
    if (d == null) {
      return new Timing(0, 0);
    }
    Kind kind = kind(method, uri);
    long drawn = d.request(kind);
    synchronized (this) {
      return new Timing(drawn, Math.max(0, drawn - handling[kind.ordinal()]));
    }
  }

  /** Requests served under a profile, the last {@link #SERVED_KEPT}: what a benchmark reports. */
  private final ArrayDeque<EmbeddedKubernetes.Served> served = new ArrayDeque<>();

  private static final int SERVED_KEPT = 100_000;

  /**
   * A request other than a watch was answered {@code servedNanos} after it arrived, its time drawn
   * at {@code drawnNanos}: kept while a profile is on, so a benchmark can show that the server took
   * the profile's time and no more.
   */
  void served(String method, String uri, long arrivedNanos, long drawnNanos, long servedNanos) {
    if (draws == null || ServerConditions.isWatch(uri)) {
      return;
    }
    var s =
        new EmbeddedKubernetes.Served(
            method,
            path(uri),
            kind(method, uri) == Kind.POD_WRITE,
            arrivedNanos,
            drawnNanos,
            servedNanos);
    synchronized (served) {
      if (served.size() == SERVED_KEPT) {
        served.removeFirst();
      }
      served.addLast(s);
    }
  }

  List<EmbeddedKubernetes.Served> served() {
    synchronized (served) {
      return List.copyOf(served);
    }
  }

  /**
   * A request of {@code method} on {@code uri} was handled, {@code nanos} after its hold ended (or
   * was due to end): kept in the kind's moving average, one eighth at a time.
   */
  void handled(String method, String uri, long nanos) {
    if (draws == null || ServerConditions.isWatch(uri)) {
      return;
    }
    int k = kind(method, uri).ordinal();
    synchronized (this) {
      handling[k] += (Math.max(0, nanos) - handling[k]) / 8;
    }
  }

  /** The 429 a real server answers a list with while its storage initializes, or null. */
  MockResponse refusal(String method, String uri) {
    if (!method.equals("GET") || isWatch(uri) || !isCollection(uri)) {
      return null;
    }
    String plural = plural(uri);
    if (!take(listRefusals, plural)) {
      return null;
    }
    seen.add(new Seen(System.nanoTime(), LIST_REFUSED, plural, uri));
    return new MockResponse()
        .setResponseCode(429)
        .setHeader("Content-Type", "application/json")
        .setHeader("Retry-After", "1")
        .setBody(
            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"metadata\":{},\"status\":\"Failure\","
                + "\"message\":\"storage is (re)initializing\",\"reason\":\"TooManyRequests\","
                + "\"details\":{\"retryAfterSeconds\":1},\"code\":429}");
  }

  /** Whether this watch request is to be dropped unanswered; every watch asked for is logged. */
  boolean dropsWatch(String uri) {
    String plural = plural(uri);
    seen.add(new Seen(System.nanoTime(), WATCH_ASKED, plural, uri));
    if (!take(watchDrops, plural)) {
      return false;
    }
    seen.add(new Seen(System.nanoTime(), WATCH_DROPPED, plural, uri));
    return true;
  }

  private static boolean take(Map<String, AtomicInteger> counts, String plural) {
    AtomicInteger left = counts.get(plural);
    return left != null && left.getAndUpdate(n -> Math.max(0, n - 1)) > 0;
  }

  /** The watch's events delivered as late as the profile says, each in order. */
  MockResponse delayingEvents(MockResponse response) {
    WebSocketListener listener = response.getWebSocketListener();
    return listener == null ? response : response.withWebSocketUpgrade(new Late(listener));
  }

  static Kind kind(String method, String uri) {
    if (method.equals("GET")) {
      return Kind.READ;
    }
    String path = path(uri);
    if (path.startsWith("/apis/baton.dev/")) {
      return Kind.RESOURCE_WRITE;
    }
    return "pods".equals(plural(uri)) ? Kind.POD_WRITE : Kind.OTHER_WRITE;
  }

  static boolean isWatch(String uri) {
    int q = uri.indexOf('?');
    if (q < 0) {
      return false;
    }
    for (String param : uri.substring(q + 1).split("&")) {
      if (param.equals("watch=true") || param.equals("watch=1")) {
        return true;
      }
    }
    return false;
  }

  private static String path(String uri) {
    int q = uri.indexOf('?');
    return q < 0 ? uri : uri.substring(0, q);
  }

  /** The resource segments of a path: after /api/v1 or /apis/group/version and any namespace. */
  private static String[] resource(String uri) {
    String[] parts = path(uri).replaceAll("^/+|/+$", "").split("/");
    int at = parts.length > 0 && parts[0].equals("api") ? 2 : 3;
    if (parts.length > at + 2 && parts[at].equals("namespaces")) {
      at += 2;
    }
    return at >= parts.length
        ? new String[0]
        : java.util.Arrays.copyOfRange(parts, at, parts.length);
  }

  /** The resource a request names, by its plural ("pods", "leadergroups"); "" for none. */
  static String plural(String uri) {
    String[] r = resource(uri);
    return r.length == 0 ? "" : r[0];
  }

  private static boolean isCollection(String uri) {
    return resource(uri).length == 1;
  }

  @Override
  public void close() {
    late.shutdownNow();
  }

  /**
   * A watch whose events reach the client a drawn delay after the server sent them, in the order
   * sent; its end waits for the events before it.
   */
  private final class Late extends WebSocketListener {
    private final WebSocketListener real;
    private volatile Socket socket;

    Late(WebSocketListener real) {
      this.real = real;
    }

    private Socket wrap(WebSocket ws) {
      Socket s = socket;
      if (s == null || s.real != ws) {
        s = new Socket(ws);
        socket = s;
      }
      return s;
    }

    @Override
    public void onBeforeAccept(WebSocket ws, Response response) {
      real.onBeforeAccept(wrap(ws), response);
    }

    @Override
    public void onOpen(WebSocket ws, Response response) {
      real.onOpen(wrap(ws), response);
    }

    @Override
    public void onMessage(WebSocket ws, String text) {
      real.onMessage(wrap(ws), text);
    }

    @Override
    public void onMessage(WebSocket ws, ByteString bytes) {
      real.onMessage(wrap(ws), bytes);
    }

    @Override
    public void onMessage(WebSocket ws, byte[] bytes) {
      real.onMessage(wrap(ws), bytes);
    }

    @Override
    public void onClosing(WebSocket ws, int code, String reason) {
      real.onClosing(wrap(ws), code, reason);
    }

    @Override
    public void onClosed(WebSocket ws, int code, String reason) {
      real.onClosed(wrap(ws), code, reason);
    }

    @Override
    public void onFailure(WebSocket ws, Throwable t, Response response) {
      real.onFailure(wrap(ws), t, response);
    }
  }

  /**
   * The client's end of one watch, each message due a drawn delay after it was sent and never
   * before the one sent ahead of it. The messages wait in a queue of their own: two timers due at
   * the same moment may fire in either order, and a watcher that got a promotion before the
   * demotion written ahead of it would see two leaders no server ever stored.
   */
  private final class Socket implements WebSocket {
    private final WebSocket real;
    private final ArrayDeque<Runnable> queued = new ArrayDeque<>();
    private long lastDue;
    private int pending;

    Socket(WebSocket real) {
      this.real = real;
    }

    @Override
    public RecordedRequest request() {
      return real.request();
    }

    @Override
    public boolean send(String text) {
      return later(() -> real.send(text), true);
    }

    @Override
    public boolean send(byte[] bytes) {
      return later(() -> real.send(bytes), true);
    }

    @Override
    public boolean close(int code, String reason) {
      return later(() -> real.close(code, reason), false);
    }

    /** At once when nothing is late and no profile is on; else after what is already due. */
    private boolean later(Runnable send, boolean drawDelay) {
      LatencyProfile.Draws d = draws;
      synchronized (this) {
        if (pending == 0 && (d == null || !drawDelay)) {
          send.run();
          return true;
        }
        long now = System.nanoTime();
        long due = Math.max(now + (d == null || !drawDelay ? 0 : d.watchEvent()), lastDue);
        lastDue = due;
        queued.addLast(send);
        pending++;
        try {
          late.schedule(this::sendOldest, due - now, TimeUnit.NANOSECONDS);
        } catch (java.util.concurrent.RejectedExecutionException e) {
          queued.removeLast();
          pending--;
          return false;
        }
        return true;
      }
    }

    /**
     * One timer's turn: sends the oldest message waiting, whichever timer fired (they fire on one
     * thread, so the messages leave in the order sent).
     */
    private void sendOldest() {
      Runnable oldest;
      synchronized (this) {
        oldest = queued.pollFirst();
      }
      try {
        if (oldest != null) {
          oldest.run();
        }
      } finally {
        synchronized (this) {
          pending--;
        }
      }
    }
  }
}
