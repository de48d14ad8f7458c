package dev.baton.agent.testing;

import dev.baton.testkit.LocalRedis;

/** The sandbox group's hold key, read as it is in Redis (hold-value.lua's format). */
public final class HoldKeys {

  public static final String KEY = "baton:{gate:" + "shop/" + AgentSandbox.GROUP + "}";

  private HoldKeys() {}

  /** The key's raw value, or null when it is absent. */
  public static String value(LocalRedis redis) {
    String reply = redis.command("GET", KEY); // RESP: "$<length>", then the value
    if (reply.isEmpty() || reply.startsWith("$-1")) {
      return null;
    }
    int line = reply.indexOf('\n');
    return line < 0 ? reply : reply.substring(line + 1).trim();
  }

  /**
   * The hold's state: 'A' taken while the key was absent and not yet proven, 'H' held and proven,
   * 'R' released; 0 when the key is absent.
   */
  public static char state(LocalRedis redis) {
    String v = value(redis);
    return v == null || v.length() < 2 || v.charAt(1) != ' ' ? 0 : v.charAt(0);
  }

  /** The pod the key's hold names, or null when it is absent. */
  public static String holderPod(LocalRedis redis) {
    String v = value(redis);
    int slash = v == null ? -1 : v.lastIndexOf('/');
    int colon = slash < 0 ? -1 : v.indexOf(':', slash);
    return colon < 0 ? null : v.substring(slash + 1, colon);
  }
}
