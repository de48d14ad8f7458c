package dev.baton.agent.testing;

import dev.baton.testkit.LocalRedis;

/** The sandbox group's gate key, read as the agents' scripts read it (by Redis's own clock). */
public final class GateKeys {

  public static final String KEY = "baton:{gate:" + "shop/" + AgentSandbox.GROUP + "}";

  private static final String HOLD_LEFT =
      "local v = redis.call('GET', KEYS[1]) if not v then return -2 end"
          + " local sep = string.find(v, ' ', 1, true)"
          + " local t = redis.call('TIME')"
          + " local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)"
          + " local u = tonumber(string.sub(v, 1, sep - 1)) if u == 0 then return -1 end"
          + " return u - now";

  private GateKeys() {}

  /**
   * Milliseconds left of the live hold: -1 when released, -2 when the key is absent, zero or less
   * when it ran out.
   */
  public static long holdLeftMillis(LocalRedis redis) {
    String reply = redis.command("EVAL", HOLD_LEFT, "1", KEY);
    if (!reply.startsWith(":")) {
      throw new IllegalStateException("unexpected reply: " + reply);
    }
    return Long.parseLong(reply.substring(1));
  }

  /** The pod the key's hold names (live, released or run out), or null when it is absent. */
  public static String holderPod(LocalRedis redis) {
    String reply = redis.command("GET", KEY);
    int slash = reply.indexOf('/');
    int colon = slash < 0 ? -1 : reply.indexOf(':', slash);
    return colon < 0 ? null : reply.substring(slash + 1, colon);
  }
}
