package dev.baton.client.settings;

import java.util.OptionalInt;

/**
 * A TCP port as Baton's settings, annotations and gate routes write it: a decimal number, spaces
 * around it ignored. The agent, the operator and kubectl baton read ports in six places; they agree
 * on what one is because they all read it here (a port the webhook admits is one the agent takes).
 */
public final class PortNumber {

  private PortNumber() {}

  /** A port something connects to or a gate listens on: 1 to 65535; empty otherwise. */
  public static OptionalInt parse(String text) {
    return within(text, 1);
  }

  /**
   * A port a server of Baton's own listens on, where 0 asks for any free one (as the tests do): 0
   * to 65535; empty otherwise.
   */
  public static OptionalInt parseListening(String text) {
    return within(text, 0);
  }

  private static OptionalInt within(String text, int lowest) {
    if (text == null) {
      return OptionalInt.empty();
    }
    try {
      int p = Integer.parseInt(text.trim());
      return p >= lowest && p <= 65535 ? OptionalInt.of(p) : OptionalInt.empty();
    } catch (NumberFormatException e) {
      return OptionalInt.empty();
    }
  }
}
