package dev.baton.client;

import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Go's duration strings ({@code 1h30m}, {@code 2s}, {@code 250ms}, {@code 1.5s}, {@code 0}), as
 * Kubernetes users and kubectl write them: the one grammar of every duration Baton reads, in specs,
 * environment variables, the failover-delay annotation and the agent's HTTP parameters.
 *
 * <p>Go's {@code time.ParseDuration} without the sign: a sequence of decimal numbers, each with a
 * unit ({@code ns}, {@code us} or {@code µs}, {@code ms}, {@code s}, {@code m}, {@code h}), or a
 * bare {@code 0}; leading and trailing spaces are ignored. The CRDs' schema pattern ({@code
 * GoDuration.PATTERN} in the api module) admits a part of this grammar only, so whatever the API
 * server lets through parses here, exactly, as its CEL rules compare it.
 */
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

  /**
   * The longest duration returned: what {@link Duration#toNanos()} and Go's own durations can hold
   * (about 292 years). A longer one comes back as this rather than refused, so that a caller's own
   * range check says what is wrong with it ("must be between 1s and 1h"), not the parser.
   */
  public static final Duration MAX = Duration.ofNanos(Long.MAX_VALUE);

  private static final BigDecimal MAX_NANOS = BigDecimal.valueOf(Long.MAX_VALUE);

  private GoDuration() {}

  /**
   * Parses a non-negative duration, exact to the nanosecond (a finer fraction is dropped, as Go
   * drops it), at most {@link #MAX}.
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
    return nanos.compareTo(MAX_NANOS) >= 0 ? MAX : Duration.ofNanos(nanos.longValue());
  }

  private static IllegalArgumentException invalid(String text) {
    return new IllegalArgumentException(
        "'"
            + text
            + "' is not a duration: use a number with a unit (ns, us, ms, s, m, h), as in 500ms,"
            + " 2s or 1m30s");
  }
}
