package dev.baton.agent.config;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Go's duration strings ({@code 1h30m}, {@code 2s}, {@code 250ms}, {@code 1.5s}), as kubectl. */
public final class GoDuration {

  private static final Pattern PART =
      Pattern.compile("(\\d+(?:\\.\\d*)?|\\.\\d+)(ns|us|µs|ms|s|m|h)");
  private static final Map<String, Long> NANOS =
      Map.of(
          "ns", 1L,
          "us", 1_000L,
          "µs", 1_000L,
          "ms", 1_000_000L,
          "s", 1_000_000_000L,
          "m", 60_000_000_000L,
          "h", 3_600_000_000_000L);

  private GoDuration() {}

  /**
   * Parses a non-negative duration.
   *
   * @throws IllegalArgumentException naming the text and the expected form
   */
  public static Duration parse(String text) {
    if (text == null || text.isBlank()) {
      throw invalid(text);
    }
    String s = text.trim();
    if (s.equals("0")) {
      return Duration.ZERO;
    }
    Matcher m = PART.matcher(s);
    int at = 0;
    BigDecimal nanos = BigDecimal.ZERO;
    while (at < s.length()) {
      if (!m.find(at) || m.start() != at) {
        throw invalid(text);
      }
      nanos =
          nanos.add(new BigDecimal(m.group(1)).multiply(BigDecimal.valueOf(NANOS.get(m.group(2)))));
      at = m.end();
    }
    try {
      return Duration.ofNanos(nanos.longValueExact());
    } catch (ArithmeticException e) {
      throw new IllegalArgumentException("duration '" + text + "' is out of range");
    }
  }

  private static IllegalArgumentException invalid(String text) {
    return new IllegalArgumentException(
        "'"
            + text
            + "' is not a duration: use a number with a unit (ns, us, ms, s, m, h), as in 500ms,"
            + " 2s or 1m30s");
  }
}
