package dev.baton.operator.kube;

/**
 * A user's value as a message may show it: conditions, Events and the text log carry these
 * messages, so a value the schema did not vouch for is cut to 64 characters and has every character
 * outside printable ASCII escaped as a Java unicode escape: a name with a line break can then not
 * forge a log line.
 */
public final class Shown {

  private static final int MAX = 64;

  private Shown() {}

  public static String value(String value) {
    if (value == null) {
      return "";
    }
    String cut = value.length() <= MAX ? value : value.substring(0, MAX - 3) + "...";
    StringBuilder out = new StringBuilder(cut.length());
    for (int i = 0; i < cut.length(); i++) {
      char c = cut.charAt(i);
      if (c >= 0x20 && c < 0x7f) {
        out.append(c);
      } else {
        out.append(String.format("\\u%04x", (int) c));
      }
    }
    return out.toString();
  }
}
