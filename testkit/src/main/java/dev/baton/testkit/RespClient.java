package dev.baton.testkit;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;

/**
 * A tiny Redis client for tests: one connection, optional TLS and AUTH, commands sent in RESP and
 * replies parsed into String, Long, List or {@link Error}. The tests use it to look at Redis and
 * Sentinel from the side, with no client library between them and the server.
 */
public final class RespClient implements AutoCloseable {

  /** An error reply, such as {@code NOPERM ...} or {@code WRONGPASS ...}. */
  public record Error(String message) {}

  private final Socket socket;
  private final InputStream in;
  private final OutputStream out;

  private RespClient(Socket socket) throws IOException {
    this.socket = socket;
    this.in = new BufferedInputStream(socket.getInputStream());
    this.out = socket.getOutputStream();
  }

  /** Connects to 127.0.0.1:port, over TLS when a context is given. */
  public static RespClient connect(int port, SSLContext tls) {
    try {
      Socket plain = new Socket();
      plain.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      plain.setSoTimeout(5000);
      if (tls == null) {
        return new RespClient(plain);
      }
      Socket s = tls.getSocketFactory().createSocket(plain, "127.0.0.1", port, true);
      return new RespClient(s);
    } catch (IOException e) {
      throw new IllegalStateException("cannot connect to 127.0.0.1:" + port + ": " + e, e);
    }
  }

  public static RespClient connect(int port) {
    return connect(port, null);
  }

  /** Connects and authenticates; a null user means the default user. */
  public static RespClient connect(int port, SSLContext tls, String user, String password) {
    RespClient c = connect(port, tls);
    if (password != null) {
      Object r = user == null ? c.call("AUTH", password) : c.call("AUTH", user, password);
      if (r instanceof Error e) {
        c.close();
        throw new IllegalStateException("AUTH failed: " + e.message());
      }
    }
    return c;
  }

  /** Sends one command and returns its reply; an error reply is returned, not thrown. */
  public Object call(String... words) {
    try {
      ByteArrayOutputStream req = new ByteArrayOutputStream();
      req.write(("*" + words.length + "\r\n").getBytes(StandardCharsets.UTF_8));
      for (String w : words) {
        byte[] b = w.getBytes(StandardCharsets.UTF_8);
        req.write(("$" + b.length + "\r\n").getBytes(StandardCharsets.UTF_8));
        req.write(b);
        req.write("\r\n".getBytes(StandardCharsets.UTF_8));
      }
      out.write(req.toByteArray());
      out.flush();
      return read();
    } catch (IOException e) {
      throw new IllegalStateException("redis command " + words[0] + " failed: " + e, e);
    }
  }

  /** Sends one command and returns its reply as text; an error reply throws. */
  public String text(String... words) {
    Object r = call(words);
    if (r instanceof Error e) {
      throw new IllegalStateException(words[0] + ": " + e.message());
    }
    return r == null ? null : r.toString();
  }

  private Object read() throws IOException {
    int type = in.read();
    String line = line();
    return switch (type) {
      case '+' -> line;
      case '-' -> new Error(line);
      case ':' -> Long.parseLong(line);
      case '$' -> {
        int n = Integer.parseInt(line);
        if (n < 0) {
          yield null;
        }
        byte[] b = in.readNBytes(n);
        line();
        yield new String(b, StandardCharsets.UTF_8);
      }
      case '*' -> {
        int n = Integer.parseInt(line);
        if (n < 0) {
          yield null;
        }
        List<Object> items = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
          items.add(read());
        }
        yield items;
      }
      case -1 -> throw new IOException("connection closed");
      default -> throw new IOException("unexpected reply type '" + (char) type + "'");
    };
  }

  private String line() throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    int c;
    while ((c = in.read()) != -1) {
      if (c == '\r') {
        in.read();
        break;
      }
      b.write(c);
    }
    return b.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException ignored) {
      // closing a test connection
    }
  }
}
