package dev.baton.agent.http;

import dev.baton.client.GoDuration;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/** A request's query parameters, parsed strictly: anything malformed is a {@link BadRequest}. */
final class Query {

  private final Map<String, String> params = new HashMap<>();

  Query(String rawQuery) {
    if (rawQuery == null || rawQuery.isEmpty()) {
      return;
    }
    for (String pair : rawQuery.split("&")) {
      if (pair.isEmpty()) {
        continue;
      }
      int eq = pair.indexOf('=');
      String name = decode(eq < 0 ? pair : pair.substring(0, eq));
      String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
      if (params.put(name, value) != null) {
        throw new BadRequest("parameter '" + name + "' is given twice");
      }
    }
  }

  Optional<Duration> duration(String name, Duration max) {
    String v = params.get(name);
    if (v == null) {
      return Optional.empty();
    }
    Duration d;
    try {
      d = GoDuration.parse(v);
    } catch (IllegalArgumentException e) {
      throw new BadRequest("parameter '" + name + "': " + e.getMessage());
    }
    if (d.compareTo(max) > 0) {
      throw new BadRequest(
          "parameter '"
              + name
              + "': "
              + v
              + " is more than the most allowed, "
              + max.toSeconds()
              + "s");
    }
    return Optional.of(d);
  }

  Optional<Boolean> bool(String name) {
    String v = params.get(name);
    if (v == null) {
      return Optional.empty();
    }
    return switch (v) {
      case "true" -> Optional.of(true);
      case "false" -> Optional.of(false);
      default ->
          throw new BadRequest("parameter '" + name + "' must be true or false, not '" + v + "'");
    };
  }

  /** Refuses parameters the endpoint does not know, so a typo is not silently ignored. */
  void only(String... known) {
    for (String name : params.keySet()) {
      if (!java.util.List.of(known).contains(name)) {
        throw new BadRequest(
            "unknown parameter '" + name + "' (known: " + String.join(", ", known) + ")");
      }
    }
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new BadRequest("malformed percent-encoding in the query");
    }
  }

  /** A 400 with its reason. */
  static final class BadRequest extends RuntimeException {
    BadRequest(String reason) {
      super(reason);
    }
  }
}
