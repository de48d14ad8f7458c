package dev.baton.api.v1alpha1;

import java.time.Duration;
import java.util.regex.Matcher;

/** Go-style duration strings ("10s", "1m30s", "500ms"), as Kubernetes users write them. */
public final class GoDuration {

  public static final String PATTERN = "^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$";
  private static final java.util.regex.Pattern PART =
      java.util.regex.Pattern.compile("([0-9]+(?:\\.[0-9]+)?)(ms|s|m|h)");

  private GoDuration() {}

  /** Parses a duration, throwing IllegalArgumentException with the offending text otherwise. */
  public static Duration parse(String text) {
    if (text == null || !text.matches(PATTERN)) {
      throw new IllegalArgumentException(
          "'" + text + "' is not a duration such as 10s, 1m30s or 500ms");
    }
    Matcher m = PART.matcher(text);
    double millis = 0;
    while (m.find()) {
      double value = Double.parseDouble(m.group(1));
      millis +=
          switch (m.group(2)) {
            case "ms" -> value;
            case "s" -> value * 1_000;
            case "m" -> value * 60_000;
            default -> value * 3_600_000;
          };
    }
    return Duration.ofMillis(Math.round(millis));
  }
}
