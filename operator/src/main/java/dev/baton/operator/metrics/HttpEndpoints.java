package dev.baton.operator.metrics;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.baton.client.DaemonThreads;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/** Serves /metrics (Prometheus text), /healthz and /readyz on one small HTTP server. */
public final class HttpEndpoints implements AutoCloseable {

  static {
    // Without it, an answer on a kept-alive connection waits for the client's delayed ACK (about
    // 40 ms): a scraper or a probe that reuses its connection pays that on every request. Read
    // once, when the JVM's first HttpServer is made.
    if (System.getProperty("sun.net.httpserver.nodelay") == null) {
      System.setProperty("sun.net.httpserver.nodelay", "true");
    }
  }

  /** An answer to a probe: ok or not, and a line saying why. */
  public record Check(boolean ok, String detail) {}

  private final HttpServer server;

  private HttpEndpoints(HttpServer server) {
    this.server = server;
  }

  public static HttpEndpoints start(
      int port, PrometheusMeterRegistry registry, Supplier<Check> health, Supplier<Check> ready)
      throws IOException {
    HttpServer server = HttpServer.create(new InetSocketAddress(port), 0);
    server.setExecutor(Executors.newFixedThreadPool(2, DaemonThreads.named("baton-http")));
    server.createContext(
        "/metrics",
        ex -> send(ex, 200, registry.scrape(), "text/plain; version=0.0.4; charset=utf-8"));
    server.createContext("/healthz", ex -> probe(ex, health.get()));
    server.createContext("/readyz", ex -> probe(ex, ready.get()));
    server.start();
    return new HttpEndpoints(server);
  }

  public int port() {
    return server.getAddress().getPort();
  }

  private static void probe(HttpExchange ex, Check check) throws IOException {
    send(
        ex,
        check.ok() ? 200 : 503,
        (check.ok() ? "ok" : "not ok") + ": " + check.detail() + "\n",
        "text/plain; charset=utf-8");
  }

  /** Answers {@code code} with {@code body} as {@code type}, its length given. */
  public static void send(HttpExchange ex, int code, String body, String type) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    ex.getResponseHeaders().set("Content-Type", type);
    ex.sendResponseHeaders(code, bytes.length);
    try (OutputStream out = ex.getResponseBody()) {
      out.write(bytes);
    }
  }

  @Override
  public void close() {
    server.stop(0);
  }
}
