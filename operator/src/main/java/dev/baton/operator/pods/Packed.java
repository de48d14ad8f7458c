package dev.baton.operator.pods;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.UUID;
import java.util.function.Function;

/**
 * Smaller forms of the strings every compact pod has its own of: a uid as a {@link UUID} (32 bytes
 * instead of about 80), a resourceVersion as a {@link Long}, a creation time as an {@link Instant},
 * an IPv4 address as an {@link Integer}. A value is packed only when unpacking gives back exactly
 * the same text; otherwise the string is kept as it is.
 */
final class Packed {

  private Packed() {}

  /** The text of a value packed by any of these, or the string itself. */
  static String text(Object value) {
    if (value == null || value instanceof String) {
      return (String) value;
    }
    if (value instanceof Integer ip) {
      int a = ip;
      return (a >>> 24) + "." + ((a >>> 16) & 0xff) + "." + ((a >>> 8) & 0xff) + "." + (a & 0xff);
    }
    return value.toString();
  }

  static Object uuid(String s) {
    return s == null || s.length() != 36 ? s : parsed(s, UUID::fromString);
  }

  static Object number(String s) {
    if (s == null || s.isEmpty() || s.length() > 18) {
      return s;
    }
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) < '0' || s.charAt(i) > '9') {
        return s;
      }
    }
    return exact(Long.valueOf(s), s);
  }

  static Object instant(String s) {
    return s == null ? null : parsed(s, Instant::parse);
  }

  static Object ipv4(String s) {
    if (s == null) {
      return null;
    }
    String[] parts = s.split("\\.", -1);
    if (parts.length != 4) {
      return s;
    }
    int out = 0;
    for (String p : parts) {
      Object n = number(p);
      if (!(n instanceof Long l) || l > 255) {
        return s;
      }
      out = (out << 8) | l.intValue();
    }
    return exact(out, s);
  }

  /** What {@code parse} makes of {@code s}, as {@link #exact} keeps it; {@code s} if it fails. */
  private static Object parsed(String s, Function<String, Object> parse) {
    try {
      return exact(parse.apply(s), s);
    } catch (IllegalArgumentException | DateTimeParseException notThatForm) {
      return s;
    }
  }

  /** {@code packed} when its text is exactly {@code s}, else {@code s} as it is. */
  private static Object exact(Object packed, String s) {
    return text(packed).equals(s) ? packed : s;
  }
}
