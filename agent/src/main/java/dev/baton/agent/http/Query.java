package dev.baton.agent.http;

import dev.baton.client.GoDuration;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** A request's query parameters, parsed strictly: anything malformed is a {@link BadRequest}. */
final class Query {

  private final Map<String, String> params = new LinkedHashMap<>();
  private final java.util.Set<String> fromBody = new java.util.HashSet<>();

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
    return duration(name, params.get(name), max);
  }

  /** {@code v} as parameter {@code name}, a duration no more than {@code max}; empty when null. */
  static Optional<Duration> duration(String name, String v, Duration max) {
    if (v == null) {
      return Optional.empty();
    }
    if (v.startsWith("-")) {
      throw new BadRequest("parameter '" + name + "' must be positive, not " + v);
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

  /**
   * Adds the fields of a JSON object body as parameters (strings or numbers, as text); an empty
   * body adds nothing. A field also given in the query is refused.
   */
  Query withBody(byte[] body) {
    String text = new String(body, StandardCharsets.UTF_8).strip();
    if (text.isEmpty()) {
      return this;
    }
    com.fasterxml.jackson.databind.JsonNode json;
    try {
      json = JSON.readTree(text);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new BadRequest("the body is not JSON: " + e.getOriginalMessage());
    }
    if (json == null || !json.isObject()) {
      throw new BadRequest("the body must be a JSON object");
    }
    var fields = json.fields();
    while (fields.hasNext()) {
      var f = fields.next();
      if (!f.getValue().isTextual() && !f.getValue().isNumber()) {
        throw new BadRequest("field '" + f.getKey() + "' must be a string or a number");
      }
      if (params.put(f.getKey(), f.getValue().asText()) != null) {
        throw new BadRequest("'" + f.getKey() + "' is given in both the query and the body");
      }
      fromBody.add(f.getKey());
    }
    return this;
  }

  private static final com.fasterxml.jackson.databind.ObjectMapper JSON =
      new com.fasterxml.jackson.databind.ObjectMapper();

  /** A parameter's text as given, or empty. */
  Optional<String> text(String name) {
    return Optional.ofNullable(params.get(name));
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
            "unknown "
                + (fromBody.contains(name) ? "field" : "parameter")
                + " '"
                + name
                + "' (known: "
                + (known.length == 0 ? "none" : String.join(", ", known))
                + ")");
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
