package dev.baton.testkit;

import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import io.fabric8.mockwebserver.vertx.HttpServerRequestHandler;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import java.lang.reflect.Field;
import java.net.InetAddress;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The mock API server's HTTP front, serving watches the way kube-apiserver does where Fabric8's own
 * front does not (docs/design.md, "Testing"):
 *
 * <ul>
 *   <li>a watch asked for over plain HTTP ({@code GET ...?watch=true} without an upgrade, as
 *       kubectl and client-go ask) is answered as a chunked stream of JSON watch events, one per
 *       line; Fabric8's front only knows WebSocket watches and fails such a request;
 *   <li>a watch asked for over WebSocket without an {@code Origin} header is refused with 403 at
 *       the handshake, as a real API server refuses it; Fabric8's client sends one, the JDK's
 *       WebSocket builder alone does not.
 * </ul>
 *
 * Everything else goes to the dispatcher exactly as Fabric8's front hands it, after the {@link
 * ServerConditions} a test switched on: a latency profile holds each request and delays each watch
 * event, lists may be refused with 429 and watch requests dropped. The stock server's fields are
 * private, so its start is replaced here and its state set by reflection.
 */
final class KubeHttpServer extends MockWebServer {

  /** A header of the server's own on each request: when its hold ends ({@link System#nanoTime}). */
  private static final String HANDLING_DUE = "X-Baton-Mock-Handling-Due";

  /** Headers of the server's own: when a request arrived, and the time its profile drew for it. */
  private static final String ARRIVED = "X-Baton-Mock-Arrived";

  private static final String DRAWN = "X-Baton-Mock-Drawn";

  private final ServerConditions conditions;

  KubeHttpServer(ServerConditions conditions) {
    this.conditions = conditions;
  }

  @Override
  public synchronized void start(InetAddress address, int port) {
    Vertx vertx = get("vertx");
    set("started", true);
    set("inetAddress", address);
    set(
        "hostName",
        address.getHostName().equals("127.0.0.1") ? "localhost" : address.getHostName());
    HttpServer server =
        vertx.createHttpServer(
            new HttpServerOptions()
                .setHost(address.getHostAddress())
                .setPort(port)
                .setHandle100ContinueAutomatically(true));
    HttpServerRequestHandler fabric8 =
        new HttpServerRequestHandler(vertx) {
          @Override
          protected MockResponse onHttpRequest(RecordedRequest request) {
            MockResponse answer = conditions.delayingEvents(dispatcher().dispatch(request));
            String due = request.getHeader(HANDLING_DUE);
            if (due != null) {
              long now = System.nanoTime();
              conditions.handled(request.getMethod(), request.getPath(), now - Long.parseLong(due));
              long arrived = Long.parseLong(request.getHeader(ARRIVED));
              conditions.served(
                  request.getMethod(),
                  request.getPath(),
                  arrived,
                  Long.parseLong(request.getHeader(DRAWN)),
                  now - arrived);
            }
            return answer;
          }
        };
    server.requestHandler(
        request -> {
          long arrived = System.nanoTime();
          ServerConditions.Timing timing =
              conditions.timing(request.method().name(), request.uri());
          long hold = timing.holdNanos();
          // When its handling is due, for the profile to learn what handling takes here.
          request.headers().set(HANDLING_DUE, Long.toString(arrived + hold));
          request.headers().set(ARRIVED, Long.toString(arrived));
          request.headers().set(DRAWN, Long.toString(timing.drawnNanos()));
          if (hold <= 0) {
            route(request, fabric8);
            return;
          }
          // Held without a thread: the request's body waits, paused, for the timer.
          request.pause();
          vertx.setTimer(Math.max(1, Math.round(hold / 1e6)), id -> route(request, fabric8));
        });
    CompletableFuture<HttpServer> listening = new CompletableFuture<>();
    server
        .listen()
        .onComplete(
            r -> {
              if (r.succeeded()) {
                listening.complete(r.result());
              } else {
                listening.completeExceptionally(r.cause());
              }
            });
    try {
      listening.get(10, TimeUnit.SECONDS);
    } catch (Exception e) {
      throw new IllegalStateException("the mock API server could not listen", e);
    }
    set("httpServer", server);
    set("port", server.actualPort());
  }

  private void route(HttpServerRequest request, HttpServerRequestHandler fabric8) {
    String uri = request.uri();
    MockResponse refused = conditions.refusal(request.method().name(), uri);
    if (refused != null) {
      request.resume();
      HttpServerResponse response = request.response().setStatusCode(refused.code());
      refused.getHeaders().toMultimap().forEach((k, v) -> response.headers().add(k, v));
      response.end(io.vertx.core.buffer.Buffer.buffer(refused.getBody().getBytes()));
    } else if (!ServerConditions.isWatch(uri)) {
      fabric8.handle(request);
    } else if (conditions.dropsWatch(uri)) {
      cut(request);
    } else if (!"websocket".equalsIgnoreCase(request.getHeader("Upgrade"))) {
      request.resume();
      streamWatch(request);
    } else if (request.getHeader("Origin") == null) {
      request.resume();
      request
          .response()
          .setStatusCode(403)
          .putHeader("Content-Type", "application/json")
          .end(
              "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                  + "\"message\":\"websocket watch without an Origin header\","
                  + "\"reason\":\"Forbidden\",\"code\":403}");
    } else {
      fabric8.handle(request);
    }
  }

  /**
   * Cuts the connection in the middle of a status line: the client sees its request fail as when
   * its connection to the API server timed out. A connection closed with nothing sent would not do:
   * the JDK's client sends a GET again at once, unseen by its caller, when a connection closes
   * before any byte of an answer.
   */
  private static void cut(HttpServerRequest request) {
    io.netty.channel.Channel channel =
        ((io.vertx.core.net.impl.ConnectionBase) request.connection()).channel();
    channel
        .pipeline()
        .firstContext()
        .writeAndFlush(
            io.netty.buffer.Unpooled.copiedBuffer(
                "HTTP/1.1 5", java.nio.charset.StandardCharsets.US_ASCII))
        .addListener(f -> channel.close());
  }

  /**
   * A watch over plain HTTP: the dispatcher's watch listener, which would write each event to a
   * WebSocket, writes it to the chunked response as one line instead; the watch ends when the
   * client goes.
   */
  private void streamWatch(HttpServerRequest request) {
    RecordedRequest recorded =
        new RecordedRequest(
            request.version().alpnName().toUpperCase(Locale.ROOT),
            HttpMethod.fromVertx(request.method()),
            request.uri(),
            Headers.builder().addAll(request.headers()).build(),
            new io.fabric8.mockwebserver.http.Buffer());
    MockResponse answer = conditions.delayingEvents(dispatcher().dispatch(recorded));
    HttpServerResponse response = request.response();
    WebSocketListener listener = answer.getWebSocketListener();
    if (listener == null) {
      // An error (410 Gone, 404, a fault injected): answered as it is.
      response.setStatusCode(answer.code());
      answer.getHeaders().toMultimap().forEach((k, v) -> response.headers().add(k, v));
      byte[] body = answer.getBody() == null ? new byte[0] : answer.getBody().getBytes();
      response.end(io.vertx.core.buffer.Buffer.buffer(body));
      return;
    }
    response.setStatusCode(200).setChunked(true).putHeader("Content-Type", "application/json");
    EventStream stream = new EventStream(recorded, response);
    listener.onBeforeAccept(stream, answer);
    response.writeHead();
    response.closeHandler(v -> stream.gone(listener));
    listener.onOpen(stream, answer);
  }

  /** The watch listener's "WebSocket": each message one line of the chunked body. */
  private static final class EventStream implements WebSocket {

    private final RecordedRequest request;
    private final HttpServerResponse response;
    private final AtomicBoolean ended = new AtomicBoolean();

    EventStream(RecordedRequest request, HttpServerResponse response) {
      this.request = request;
      this.response = response;
    }

    @Override
    public RecordedRequest request() {
      return request;
    }

    @Override
    public boolean send(String text) {
      if (ended.get()) {
        return false;
      }
      response.write(text.endsWith("\n") ? text : text + "\n");
      return true;
    }

    @Override
    public boolean send(byte[] bytes) {
      return send(new String(bytes, java.nio.charset.StandardCharsets.UTF_8));
    }

    @Override
    public boolean close(int code, String reason) {
      if (ended.compareAndSet(false, true)) {
        try {
          response.end();
        } catch (IllegalStateException e) {
          // the client went first
        }
      }
      return true;
    }

    void gone(WebSocketListener listener) {
      ended.set(true);
      listener.onClosed(this, 1000, "the client closed the watch");
    }
  }

  private Dispatcher dispatcher() {
    return get("dispatcher");
  }

  @SuppressWarnings("unchecked")
  private <T> T get(String name) {
    try {
      return (T) field(name).get(this);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  private void set(String name, Object value) {
    try {
      field(name).set(this, value);
    } catch (IllegalAccessException e) {
      throw new IllegalStateException(e);
    }
  }

  private static Field field(String name) {
    try {
      Field f = MockWebServer.class.getDeclaredField(name);
      f.setAccessible(true);
      return f;
    } catch (NoSuchFieldException e) {
      throw new IllegalStateException(
          "Fabric8's MockWebServer has no field " + name + ": its version changed", e);
    }
  }
}
