package dev.baton.agent.config;

import dev.baton.client.settings.PortNumber;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * One gate: the port the agent listens on (all interfaces) and the target it forwards to.
 *
 * @param listenPort the port a Service targets
 * @param targetHost the application, normally on loopback
 * @param targetPort the application's port
 */
public record GateRoute(int listenPort, String targetHost, int targetPort) {

  /** {@code <listen port>:<target host>:<target port>[,...]}; an IPv6 host in brackets. */
  public static List<GateRoute> parseList(String text) {
    List<GateRoute> out = new ArrayList<>();
    if (text == null || text.isBlank()) {
      return out;
    }
    Set<Integer> ports = new HashSet<>();
    for (String part : text.split(",")) {
      if (part.isBlank()) {
        continue;
      }
      GateRoute r = parse(part.trim());
      if (!ports.add(r.listenPort())) {
        throw new IllegalArgumentException("gate port " + r.listenPort() + " is given twice");
      }
      out.add(r);
    }
    return out;
  }

  static GateRoute parse(String text) {
    int first = text.indexOf(':');
    int last = text.lastIndexOf(':');
    if (first < 0 || last == first) {
      throw new IllegalArgumentException(
          "gate '" + text + "' must be <listen port>:<target host>:<target port>");
    }
    String host = text.substring(first + 1, last);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    if (host.isBlank()) {
      throw new IllegalArgumentException("gate '" + text + "' names no target host");
    }
    return new GateRoute(
        port(text, text.substring(0, first)), host, port(text, text.substring(last + 1)));
  }

  private static int port(String gate, String text) {
    return PortNumber.parse(text)
        .orElseThrow(
            () ->
                new IllegalArgumentException(
                    "gate '" + gate + "': '" + text + "' is not a port (1 to 65535)"));
  }

  @Override
  public String toString() {
    return listenPort + " -> " + targetHost + ":" + targetPort;
  }
}
