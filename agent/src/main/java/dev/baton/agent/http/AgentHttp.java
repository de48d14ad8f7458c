package dev.baton.agent.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import com.sun.net.httpserver.HttpServer;
import dev.baton.agent.leadership.AgentLeadership;
import dev.baton.agent.leadership.LeadershipView;
import dev.baton.agent.locks.LockService;
import dev.baton.agent.metrics.AgentMetrics;
import dev.baton.agent.threads.AgentThreads;
import dev.baton.client.LockKeys;
import dev.baton.client.LockOwner;
import dev.baton.client.LockUnavailableException;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's local HTTP API (docs/api.md, "The agent: leadership over HTTP" and "The agent: locks
 * over HTTP"): leadership, its long poll and its events, fenced locks, health, readiness and
 * metrics. Errors answer JSON {@code {"error": reason}}.
 */
public final class AgentHttp implements AutoCloseable {

  static {
    // The JDK's server writes an answer's headers and body apart and leaves Nagle's algorithm on:
    // on a kept-alive connection the body then waits for the client's delayed ACK, about 40 ms
    // for every answer. Read once, when the JVM's first HttpServer is made.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
    // A request's head must arrive within 5 s, or its connection is closed: a client that
    // trickles one would otherwise hold one of the API's threads for as long as it likes.
    if (System.getProperty("sun.net.httpserver.maxReqTime") == null) {
      System.setProperty("sun.net.httpserver.maxReqTime", "5");
    }
  }

  private static final Logger log = LoggerFactory.getLogger(AgentHttp.class);
  private static final ObjectMapper JSON =
      new ObjectMapper().disable(SerializationFeature.FAIL_ON_EMPTY_BEANS);
  static final Duration MAX_WAIT = Duration.ofMinutes(10);

  /**
   * Requests served at once, long polls and event streams included; more are reset at once. The API
   * listens on the pod's loopback: its clients are the pod's own containers, which need a few each.
   * Each thread costs about 130 KiB of the container's memory while it serves.
   */
  static final int MAX_THREADS = 16;

  private static final String LOCKS = "/v1/locks/";

  private final AgentLeadership leadership;
  private final LockService locks;
  private final AgentMetrics metrics;
  private final HttpServer server;
  private final ProbeServer probes;
  private final ExecutorService threads;
  private final LeadershipEvents events;

  /**
   * @param probes also serve health, readiness and metrics there, and nothing else
   * @param locks null without Redis: the lock endpoints answer 503
   */
  public AgentHttp(
      InetSocketAddress listen,
      Optional<InetSocketAddress> probes,
      AgentLeadership leadership,
      LockService locks,
      AgentMetrics metrics,
      AgentThreads agentThreads) {
    this.leadership = leadership;
    this.locks = locks;
    this.metrics = metrics;
    this.events = new LeadershipEvents(leadership, JSON);
    // Long polls and event streams each hold a thread for as long as they last.
    threads = agentThreads.bounded("baton-agent-http", MAX_THREADS, 0);
    server = listen(listen, this::handle);
    try {
      this.probes =
          probes.map(p -> new ProbeServer(p, this::probeAnswer, agentThreads)).orElse(null);
    } catch (RuntimeException e) {
      server.stop(0);
      throw e;
    }
  }

  private HttpServer listen(InetSocketAddress address, HttpHandler handler) {
    HttpServer s;
    try {
      s = HttpServer.create(address, 64);
    } catch (IOException e) {
      throw new IllegalStateException(
          "the HTTP API cannot listen on " + address + ": " + e.getMessage(), e);
    }
    s.setExecutor(threads);
    s.createContext("/", handler);
    s.start();
    return s;
  }

  public int port() {
    return server.getAddress().getPort();
  }

  /** The probes listener's port, or -1 when there is none. */
  public int probesPort() {
    return probes == null ? -1 : probes.port();
  }

  private void handle(HttpExchange ex) throws IOException {
    try (ex) {
      String path = ex.getRequestURI().getRawPath();
      String method = ex.getRequestMethod();
      try {
        if (probe(ex, path)) {
          return;
        } else if (path.equals("/v1/leadership")) {
          requireMethod(method, "GET");
          leadership(ex);
        } else if (path.equals("/v1/leadership/events")) {
          requireMethod(method, "GET");
          new Query(ex.getRequestURI().getRawQuery()).only();
          events.stream(ex);
        } else if (path.startsWith(LOCKS) && path.length() > LOCKS.length()) {
          lock(ex, method, path.substring(LOCKS.length()));
        } else if (DaprLocks.handles(path)) {
          LockService.Outcome out =
              DaprLocks.answer(
                  method,
                  path,
                  ex.getRequestURI().getRawQuery(),
                  ex.getRequestBody().readAllBytes(),
                  locks);
          metrics.lockRequest(
              path.startsWith(DaprLocks.LOCK) ? "dapr-lock" : "dapr-unlock", out.status());
          json(ex, out.status(), out.body());
        } else if (path.equals("/")) {
          requireMethod(method, "GET");
          elector(ex);
        } else {
          json(ex, 404, error("no such endpoint: " + path));
        }
      } catch (org.redisson.client.RedisException e) {
        json(ex, 503, error("Redis did not answer: " + e.getClass().getSimpleName()));
      } catch (Query.BadRequest e) {
        json(ex, 400, error(e.getMessage()));
      } catch (MethodNotAllowed e) {
        ex.getResponseHeaders().set("Allow", e.getMessage());
        json(ex, 405, error("use " + e.getMessage()));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (IOException e) {
        log.debug("a client went away: {}", e.toString());
      } catch (RuntimeException e) {
        log.warn("request {} {} failed", method, path, e);
        json(ex, 500, error("internal error: " + e.getClass().getSimpleName()));
      }
    }
  }

  /** Health, readiness and metrics; true when {@code path} was one of them. */
  private boolean probe(HttpExchange ex, String path) throws IOException {
    ProbeServer.Answer a = probeAnswer(path);
    if (a.status() == 404) {
      return false;
    }
    ex.getResponseHeaders().set("Content-Type", a.type());
    send(ex, a.status(), a.body());
    return true;
  }

  /** Health, readiness and metrics: the same on the API's port and on the probes' own. */
  private ProbeServer.Answer probeAnswer(String path) {
    if (path.equals("/healthz")) {
      return plain(200, "ok\n");
    } else if (path.equals("/readyz")) {
      String why =
          leadership.ready()
              ? leadership.notReadyReason().orElse(null)
              : "the pod has not been read yet";
      return why == null ? plain(200, "ok\n") : plain(503, why + "\n");
    } else if (path.equals("/metrics")) {
      return new ProbeServer.Answer(
          200,
          "text/plain; version=0.0.4; charset=utf-8",
          metrics.scrape().getBytes(StandardCharsets.UTF_8));
    }
    return new ProbeServer.Answer(
        404,
        "application/json",
        ("{\"error\":\"only /healthz, /readyz and /metrics are served here\"}")
            .getBytes(StandardCharsets.UTF_8));
  }

  private static ProbeServer.Answer plain(int status, String body) {
    return new ProbeServer.Answer(
        status, "text/plain; charset=utf-8", body.getBytes(StandardCharsets.UTF_8));
  }

  /**
   * The Kubernetes {@code leader-elector} sidecar's answer, {@code {"name": "<leader pod>"}} (""
   * while no gate is open that this agent knows of), on {@code GET /} of the same default port
   * (4040), so that its users switch by changing the image.
   */
  private void elector(HttpExchange ex) throws IOException {
    String leader = leadership.view().leaderPod();
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("name", leader == null ? "" : leader);
    json(ex, 200, body);
  }

  private void leadership(HttpExchange ex) throws IOException, InterruptedException {
    Query q = new Query(ex.getRequestURI().getRawQuery());
    q.only("wait", "leader");
    var wait = q.duration("wait", MAX_WAIT);
    var leader = q.bool("leader");
    if (leader.isPresent() && wait.isEmpty()) {
      throw new Query.BadRequest("parameter 'leader' needs 'wait' (the long poll's limit)");
    }
    LeadershipView v =
        wait.isPresent()
            ? leadership.awaitLeaderOtherThan(leader.orElse(leadership.view().leader()), wait.get())
            : leadership.view();
    json(ex, 200, v);
  }

  private void lock(HttpExchange ex, String method, String rest)
      throws IOException, InterruptedException {
    String operation;
    String rawKey;
    if (method.equals("POST") && rest.endsWith("/renew")) {
      operation = "renew";
      rawKey = rest.substring(0, rest.length() - "/renew".length());
    } else if (method.equals("POST")) {
      operation = "acquire";
      rawKey = rest;
    } else if (method.equals("DELETE")) {
      operation = "release";
      rawKey = rest;
    } else if (method.equals("GET")) {
      operation = "state";
      rawKey = rest;
    } else {
      throw new MethodNotAllowed("GET, POST, DELETE");
    }
    String key = key(rawKey);
    Query q =
        new Query(ex.getRequestURI().getRawQuery()).withBody(ex.getRequestBody().readAllBytes());
    LockService.Outcome out;
    if (locks == null) {
      out = noRedis();
    } else {
      try {
        switch (operation) {
          case "acquire" -> {
            q.only("ttl", "wait", "owner");
            Duration ttl = ttl(q).orElse(LockService.DEFAULT_TTL);
            out =
                locks.acquire(
                    key, owner(q), ttl, q.duration("wait", MAX_WAIT).orElse(Duration.ZERO));
          }
          case "renew" -> {
            q.only("ttl", "owner");
            out = locks.renew(key, owner(q), ttl(q));
          }
          case "state" -> {
            q.only("wait", "owner", "atRisk");
            var wait = q.duration("wait", MAX_WAIT);
            var atRisk = q.bool("atRisk");
            if (atRisk.isPresent() && wait.isEmpty()) {
              throw new Query.BadRequest("parameter 'atRisk' needs 'wait' (the long poll's limit)");
            }
            out = locks.state(key, owner(q), wait.orElse(Duration.ZERO), atRisk.orElse(false));
          }
          default -> {
            q.only("owner");
            out = locks.release(key, owner(q));
          }
        }
      } catch (LockUnavailableException e) {
        out = new LockService.Outcome(503, error(e.getMessage()));
      }
    }
    metrics.lockRequest(operation, out.status());
    json(ex, out.status(), out.body());
  }

  static LockService.Outcome noRedis() {
    return new LockService.Outcome(
        503, error("locks need Redis: BATON_REDIS_URL is not set for the agent"));
  }

  /** The part of the pod a request speaks for ({@code owner}), or null: the pod as a whole. */
  static String owner(Query q) {
    return owner(q.text("owner").orElse(null), "owner");
  }

  static String owner(String owner, String name) {
    if (owner != null && !LockOwner.isPartName(owner)) {
      throw new Query.BadRequest(
          "'" + name + "' must be 1 to 128 letters, digits, '.', '_' or '-', not '" + owner + "'");
    }
    return owner;
  }

  static final Duration MIN_TTL = Duration.ofSeconds(1);
  static final Duration MAX_TTL = Duration.ofHours(1);

  /** A lock's ttl: within a RedisLock's bounds, 1s to 1h. */
  static Optional<Duration> ttl(Query q) {
    Optional<Duration> ttl = q.duration("ttl", Duration.ofDays(366));
    if (ttl.isPresent() && (ttl.get().compareTo(MIN_TTL) < 0 || ttl.get().compareTo(MAX_TTL) > 0)) {
      throw new Query.BadRequest(
          "parameter 'ttl' must be between 1s and 1h, as a RedisLock's ttl, not "
              + q.text("ttl").orElse(""));
    }
    return ttl;
  }

  static String key(String raw) {
    String key;
    try {
      key = URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new Query.BadRequest("malformed percent-encoding in the lock key");
    }
    try {
      return new LockKeys(key).key();
    } catch (IllegalArgumentException e) {
      throw new Query.BadRequest(e.getMessage());
    }
  }

  private static void requireMethod(String method, String allowed) {
    if (!method.equals(allowed)) {
      throw new MethodNotAllowed(allowed);
    }
  }

  static Map<String, Object> error(String message) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("error", message);
    return body;
  }

  private static void json(HttpExchange ex, int status, Object body) throws IOException {
    ex.getResponseHeaders().set("Content-Type", "application/json");
    send(ex, status, JSON.writeValueAsBytes(body));
  }

  private static void send(HttpExchange ex, int status, byte[] body) throws IOException {
    ex.sendResponseHeaders(status, body.length == 0 ? -1 : body.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(body);
    }
  }

  /** A 405, with the methods allowed as its message. */
  private static final class MethodNotAllowed extends RuntimeException {
    MethodNotAllowed(String allowed) {
      super(allowed);
    }
  }

  @Override
  public void close() {
    events.close();
    server.stop(0);
    if (probes != null) {
      probes.close();
    }
  }
}
