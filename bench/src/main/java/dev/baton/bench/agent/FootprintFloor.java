package dev.baton.bench.agent;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * The least a JVM holds to do an idle agent's job, and nothing else: its pod read and watched over
 * {@code java.net.http} (as the agent does), a loopback HTTP API on the JDK's own server, a Redis
 * connection subscribed to a channel and one that sends a command a second (raw RESP on NIO, no
 * client library), and a gate's listening socket on a selector. No JSON, no YAML, no logging, no
 * Redis client, no metrics: whatever RSS this reaches under the image's JVM options is a floor no
 * agent on that JVM can go below. Only the JDK is on its class path; the benchmark runs it through
 * the agent's own entrypoint, in place of the agent's jar ({@link #CLASSES}).
 *
 * <p>Environment: as the agent's ({@code POD_NAME}, {@code POD_NAMESPACE}, {@code
 * BATON_AGENT_LISTEN}, {@code BATON_AGENT_GATE}, {@code BATON_REDIS_URL}), plus {@code
 * FLOOR_API_SERVER}, the API server's URL, in place of a kubeconfig to parse.
 */
public final class FootprintFloor {

  /** Every class file of the floor, for the jar the benchmark writes. */
  static final List<Class<?>> CLASSES = List.of(FootprintFloor.class, PlainHttpOnly.class);

  private static volatile String pod;

  private FootprintFloor() {}

  public static void main(String[] args) throws Exception {
    String api = trimSlash(System.getenv("FLOOR_API_SERVER"));
    String path =
        "/api/v1/namespaces/"
            + System.getenv("POD_NAMESPACE")
            + "/pods/"
            + System.getenv("POD_NAME");
    // As the agent's pod watch over plain HTTP: no default TLS context built for nothing.
    HttpClient client =
        HttpClient.newBuilder()
            .version(HttpClient.Version.HTTP_1_1)
            .sslContext(new PlainHttpOnly())
            .sslParameters(new SSLParameters())
            .build();
    Thread watch =
        new Thread(
            () -> {
              try {
                pod =
                    client
                        .send(
                            HttpRequest.newBuilder(URI.create(api + path)).build(),
                            HttpResponse.BodyHandlers.ofString())
                        .body();
                String watchPath =
                    "/api/v1/namespaces/"
                        + System.getenv("POD_NAMESPACE")
                        + "/pods?fieldSelector=metadata.name%3D"
                        + System.getenv("POD_NAME")
                        + "&watch=true";
                HttpResponse<Stream<String>> events =
                    client.send(
                        HttpRequest.newBuilder(URI.create(api + watchPath)).build(),
                        HttpResponse.BodyHandlers.ofLines());
                events.body().forEach(line -> pod = line);
              } catch (IOException e) {
                System.err.println("floor: the pod watch ended: " + e);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
            },
            "pod-watch");
    watch.setDaemon(true);
    watch.start();

    String[] listen = System.getenv("BATON_AGENT_LISTEN").split(":");
    HttpServer http =
        HttpServer.create(new InetSocketAddress(listen[0], Integer.parseInt(listen[1])), 16);
    http.createContext("/readyz", ex -> answer(ex, pod == null ? 503 : 200, "ok\n"));
    http.createContext(
        "/v1/leadership",
        ex -> answer(ex, 200, "{\"leader\":false,\"pod\":\"" + System.getenv("POD_NAME") + "\"}"));
    http.start();

    URI redis = URI.create(System.getenv("BATON_REDIS_URL"));
    InetSocketAddress redisAddress = new InetSocketAddress(redis.getHost(), redis.getPort());
    int gatePort = Integer.parseInt(System.getenv("BATON_AGENT_GATE").split(":")[0]);
    Selector selector = Selector.open();
    ServerSocketChannel gate = ServerSocketChannel.open();
    gate.bind(new InetSocketAddress(gatePort));
    gate.configureBlocking(false);
    gate.register(selector, SelectionKey.OP_ACCEPT);
    SocketChannel subscription = SocketChannel.open(redisAddress);
    subscription.write(ascii(command("SUBSCRIBE", "baton:gates")));
    subscription.configureBlocking(false);
    subscription.register(selector, SelectionKey.OP_READ);
    SocketChannel commands = SocketChannel.open(redisAddress);
    commands.configureBlocking(false);
    commands.register(selector, SelectionKey.OP_READ);
    ByteBuffer in = ByteBuffer.allocateDirect(16 * 1024);
    long nextCommand = 0;
    while (true) {
      selector.select(250);
      for (SelectionKey key : selector.selectedKeys()) {
        if (key.isAcceptable()) {
          SocketChannel refused = gate.accept();
          if (refused != null) {
            refused.close();
          }
        } else if (key.isReadable()) {
          in.clear();
          if (((SocketChannel) key.channel()).read(in) < 0) {
            throw new IOException("Redis closed a connection");
          }
        }
      }
      selector.selectedKeys().clear();
      if (System.nanoTime() - nextCommand > 0) {
        nextCommand = System.nanoTime() + 1_000_000_000L;
        commands.write(
            ascii(
                command(
                    "EVAL",
                    "return redis.call('PEXPIRE', KEYS[1], ARGV[1])",
                    "1",
                    "baton:{floor}",
                    "1000")));
      }
    }
  }

  private static void answer(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.sendResponseHeaders(status, bytes.length);
    try (OutputStream out = exchange.getResponseBody()) {
      out.write(bytes);
    }
  }

  private static String command(String... words) {
    StringBuilder resp = new StringBuilder("*").append(words.length).append("\r\n");
    for (String w : words) {
      resp.append('$').append(w.length()).append("\r\n").append(w).append("\r\n");
    }
    return resp.toString();
  }

  private static ByteBuffer ascii(String s) {
    return ByteBuffer.wrap(s.getBytes(StandardCharsets.US_ASCII));
  }

  private static String trimSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  /** A TLS context nothing may use: the API server here is plain HTTP. */
  static final class PlainHttpOnly extends SSLContext {
    PlainHttpOnly() {
      super(null, null, "none");
    }
  }
}
