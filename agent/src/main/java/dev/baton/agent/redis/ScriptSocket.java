package dev.baton.agent.redis;

import dev.baton.client.CaCertificates;
import dev.baton.client.RedisLogin;
import dev.baton.client.RedisUrl;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * One connection to a single Redis server that runs a script and waits for its answer on the
 * calling thread: the hold key's calls, which sit on a failover's clock. Through the client library
 * a call crosses three threads (the caller, its event loop, the caller again), and on a busy node
 * each crossing waits for a core: 7-11 ms a call in the relay benchmark where a blocking read costs
 * one wake-up. The library stays for everything else (locks, subscriptions, Sentinel and Cluster);
 * this serves {@code redis://} and {@code rediss://} URLs of one server only.
 *
 * <p>A call is sent once and never again: a call that fails or is not answered within the response
 * timeout closes the connection, so a late answer can never be read as a later call's, and the next
 * call connects anew. Not for use by two threads at once; its methods lock.
 */
public final class ScriptSocket implements AutoCloseable {

  /**
   * Where and as whom: a server, how TLS is made to it (null: plain), and the credentials its AUTH
   * takes (null: none).
   */
  private record Server(
      String host,
      int port,
      boolean tls,
      SSLSocketFactory tlsSockets,
      String username,
      String password,
      int connectMillis,
      int answerMillis) {

    /** Never the credentials. */
    @Override
    public String toString() {
      return (tls ? "rediss://" : "redis://") + host + ":" + port;
    }
  }

  private final Server server;
  private Socket socket;
  private OutputStream out;
  private InputStream in;

  private ScriptSocket(Server server) {
    this.server = server;
  }

  /**
   * A socket for {@code url} when it names one server (database 0), with the credentials apart
   * winning over those in the URL, as {@link RedisConnection#open} reads them; empty for Sentinel,
   * Cluster or another database, which the client library serves.
   */
  public static Optional<ScriptSocket> forUrl(
      String url, String username, String password, Duration connectWithin, Duration answerWithin) {
    return forUrl(url, RedisLogin.of(username, password), connectWithin, answerWithin);
  }

  /** As above, as this login reaches the server: its credentials, and the CAs it trusts. */
  public static Optional<ScriptSocket> forUrl(
      String url, RedisLogin login, Duration connectWithin, Duration answerWithin) {
    RedisUrl u = RedisUrl.parse(url);
    RedisLogin who = login.orFrom(u);
    if (u.kind() != RedisUrl.Kind.SINGLE) {
      return Optional.empty();
    }
    URI uri = URI.create(u.describe());
    String path = uri.getPath();
    if (uri.getHost() == null || (path != null && !path.isEmpty() && !path.equals("/0"))) {
      return Optional.empty();
    }
    return Optional.of(
        new ScriptSocket(
            new Server(
                uri.getHost(),
                uri.getPort() < 0 ? 6379 : uri.getPort(),
                u.tls(),
                !u.tls()
                    ? null
                    : login.trust() != null
                        ? CaCertificates.socketFactory(login.trust())
                        : (SSLSocketFactory) SSLSocketFactory.getDefault(),
                who.username(),
                who.password(),
                (int) connectWithin.toMillis(),
                (int) answerWithin.toMillis())));
  }

  /**
   * Runs {@code source} with {@code keys} and {@code args}: its answer, a list as Redis gave it
   * (integers as {@link Long}, bulk strings as {@link String}, nil as null, nested lists as lists).
   *
   * @throws IOException when it could not be sent, was not answered in time, or Redis answered an
   *     error; the script may have run
   */
  public synchronized Object eval(String source, List<String> keys, List<String> args)
      throws IOException {
    List<String> command = new ArrayList<>(3 + keys.size() + args.size());
    command.add("EVAL");
    command.add(source);
    command.add(Integer.toString(keys.size()));
    command.addAll(keys);
    command.addAll(args);
    try {
      connected();
      send(command);
      return read();
    } catch (ErrorAnswer e) {
      throw e; // answered in full: the connection is still in step
    } catch (IOException | RuntimeException e) {
      close();
      throw e instanceof IOException io ? io : new IOException(e.toString(), e);
    }
  }

  /** Redis answered with an error; its first word (NOPERM, WRONGPASS...), never its arguments. */
  public static final class ErrorAnswer extends IOException {
    ErrorAnswer(String word) {
      super("Redis answered an error: " + word);
    }
  }

  /** Drops the connection; the next call connects anew. */
  @Override
  public synchronized void close() {
    if (socket != null) {
      try {
        socket.close();
      } catch (IOException e) {
        // closing anyway
      }
    }
    socket = null;
    out = null;
    in = null;
  }

  private void connected() throws IOException {
    if (socket != null) {
      return;
    }
    Socket s = new Socket();
    try {
      s.setTcpNoDelay(true);
      s.connect(new InetSocketAddress(server.host(), server.port()), server.connectMillis());
      if (server.tls()) {
        SSLSocket secured =
            (SSLSocket) server.tlsSockets().createSocket(s, server.host(), server.port(), true);
        SSLParameters p = secured.getSSLParameters();
        p.setEndpointIdentificationAlgorithm("HTTPS");
        secured.setSSLParameters(p);
        s = secured;
      }
      s.setSoTimeout(server.answerMillis());
      socket = s;
      out = s.getOutputStream();
      in = new BufferedInputStream(s.getInputStream(), 4096);
      String password = server.password();
      if (password != null && !password.isBlank()) {
        String username = server.username();
        send(
            username != null && !username.isBlank()
                ? List.of("AUTH", username, password)
                : List.of("AUTH", password));
        read();
      }
    } catch (IOException | RuntimeException e) {
      s.close();
      socket = null;
      throw e;
    }
  }

  private void send(List<String> command) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream(256);
    b.writeBytes(("*" + command.size() + "\r\n").getBytes(StandardCharsets.US_ASCII));
    for (String part : command) {
      byte[] bytes = part.getBytes(StandardCharsets.UTF_8);
      b.writeBytes(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
      b.writeBytes(bytes);
      b.writeBytes(new byte[] {'\r', '\n'});
    }
    out.write(b.toByteArray());
    out.flush();
  }

  /** One RESP2 reply. An error reply is thrown with Redis's first word only (no arguments). */
  private Object read() throws IOException {
    int type = in.read();
    if (type < 0) {
      throw new IOException("Redis closed the connection");
    }
    String line = line();
    switch (type) {
      case '+':
        return line;
      case '-':
        int space = line.indexOf(' ');
        throw new ErrorAnswer(space < 0 ? line : line.substring(0, space));
      case ':':
        return Long.parseLong(line);
      case '$':
        int length = Integer.parseInt(line);
        if (length < 0) {
          return null;
        }
        byte[] bytes = in.readNBytes(length + 2);
        if (bytes.length != length + 2) {
          throw new IOException("Redis closed the connection within an answer");
        }
        return new String(bytes, 0, length, StandardCharsets.UTF_8);
      case '*':
        int n = Integer.parseInt(line);
        if (n < 0) {
          return null;
        }
        List<Object> items = new ArrayList<>(n);
        ErrorAnswer error = null;
        for (int i = 0; i < n; i++) {
          // An error among the items is told once all of them are read: the connection in step.
          try {
            items.add(read());
          } catch (ErrorAnswer e) {
            error = error == null ? e : error;
            items.add(null);
          }
        }
        if (error != null) {
          throw error;
        }
        return items;
      default:
        throw new IOException("not a Redis answer");
    }
  }

  private String line() throws IOException {
    StringBuilder s = new StringBuilder();
    while (true) {
      int c = in.read();
      if (c < 0) {
        throw new IOException("Redis closed the connection");
      }
      if (c == '\r') {
        if (in.read() != '\n') {
          throw new IOException("not a Redis answer");
        }
        return s.toString();
      }
      s.append((char) c);
    }
  }
}
