package dev.baton.operator.pods;

import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.UUID;

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
    if (s == null || s.length() != 36) {
      return s;
    }
    try {
      UUID u = UUID.fromString(s);
      return u.toString().equals(s) ? u : s;
    } catch (IllegalArgumentException notAUuid) {
      return s;
    }
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
    Long n = Long.valueOf(s);
    return n.toString().equals(s) ? n : s;
  }

  static Object instant(String s) {
    if (s == null) {
      return null;
    }
    try {
      Instant t = Instant.parse(s);
      return t.toString().equals(s) ? t : s;
    } catch (DateTimeParseException notAnInstant) {
      return s;
    }
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
    Integer packed = out;
    return text(packed).equals(s) ? packed : s;
  }
}
