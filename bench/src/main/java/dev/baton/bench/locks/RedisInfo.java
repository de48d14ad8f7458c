package dev.baton.bench.locks;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * What one redis-server reports about itself ({@code INFO stats} and {@code INFO commandstats}),
 * read over a fresh connection so the client under test is not involved.
 *
 * @param readEvents {@code total_reads_processed}: read events on client sockets. A client that
 *     waits for each reply before sending again causes one per request: its round trips. A pipeline
 *     or a multi-command batch that arrives together counts once.
 * @param commands every command executed, including those a Lua script calls
 * @param scriptCalls EVAL and EVALSHA calls (each one client request)
 * @param pings PING commands (a client's connection health checks)
 */
public record RedisInfo(long readEvents, long commands, long scriptCalls, long pings) {

  public static RedisInfo of(int port) {
    Map<String, String> stats = parse(info(port, "stats"));
    Map<String, String> cmds = parse(info(port, "commandstats"));
    long commands = 0;
    long scripts = 0;
    long pings = 0;
    for (Map.Entry<String, String> e : cmds.entrySet()) {
      String name = e.getKey().substring("cmdstat_".length());
      if (name.equals("info")) {
        continue;
      }
      long calls = calls(e.getValue());
      commands += calls;
      if (name.equals("eval") || name.equals("evalsha")) {
        scripts += calls;
      }
      if (name.equals("ping")) {
        pings += calls;
      }
    }
    return new RedisInfo(
        Long.parseLong(stats.get("total_reads_processed")), commands, scripts, pings);
  }

  /** The sum over several servers (a cluster's masters). */
  public static RedisInfo of(java.util.List<Integer> ports) {
    RedisInfo sum = new RedisInfo(0, 0, 0, 0);
    for (int port : ports) {
      RedisInfo one = of(port);
      sum =
          new RedisInfo(
              sum.readEvents + one.readEvents,
              sum.commands + one.commands,
              sum.scriptCalls + one.scriptCalls,
              sum.pings + one.pings);
    }
    return sum;
  }

  public RedisInfo minus(RedisInfo earlier) {
    return new RedisInfo(
        readEvents - earlier.readEvents,
        commands - earlier.commands,
        scriptCalls - earlier.scriptCalls,
        pings - earlier.pings);
  }

  private static long calls(String value) {
    for (String part : value.split(",")) {
      if (part.startsWith("calls=")) {
        return Long.parseLong(part.substring("calls=".length()));
      }
    }
    return 0;
  }

  private static Map<String, String> parse(String info) {
    Map<String, String> out = new HashMap<>();
    for (String line : info.split("\r\n")) {
      int colon = line.indexOf(':');
      if (colon > 0 && !line.startsWith("#")) {
        out.put(line.substring(0, colon), line.substring(colon + 1));
      }
    }
    return out;
  }

  /** INFO section over RESP: a bulk string, read to its announced length. */
  static String info(int port, String section) {
    try (Socket s = new Socket()) {
      s.connect(new InetSocketAddress("127.0.0.1", port), 1000);
      s.setSoTimeout(5000);
      OutputStream out = s.getOutputStream();
      out.write(
          ("*2\r\n$4\r\nINFO\r\n$" + section.length() + "\r\n" + section + "\r\n")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      InputStream in = s.getInputStream();
      String header = readLine(in);
      if (!header.startsWith("$")) {
        throw new IOException("unexpected INFO reply: " + header);
      }
      byte[] body = in.readNBytes(Integer.parseInt(header.substring(1)));
      return new String(body, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException(
          "INFO " + section + " on port " + port + ": " + e.getMessage(), e);
    }
  }

  private static String readLine(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    int prev = -1;
    for (int b = in.read(); b >= 0; b = in.read()) {
      if (prev == '\r' && b == '\n') {
        byte[] bytes = line.toByteArray();
        return new String(bytes, 0, bytes.length - 1, StandardCharsets.US_ASCII);
      }
      line.write(b);
      prev = b;
    }
    throw new IOException("connection closed");
  }
}
