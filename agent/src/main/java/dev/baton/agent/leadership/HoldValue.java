package dev.baton.agent.leadership;

/**
 * A hold key's value as the scripts write it (hold-value.lua): {@code <state> <term> <seq>
 * <incarnation> <hold>}, where {@code seq} is the write's own number (no two writes leave the same
 * value) and the hold is {@code agent:<namespace>/<pod>:<term>:<nonce>-<n>[@<pod IP>]}, named by
 * the one call that took it: the scripts compare it whole, and followers read from it who leads and
 * where to reach it.
 *
 * @param state {@code A} taken while the key was absent (not yet proven: its gate is shut), {@code
 *     H} held and proven (its gate may be open), {@code R} released (its gate closed)
 */
record HoldValue(char state, long term, long seq, String incarnation, String hold) {

  static final char UNPROVEN = 'A';
  static final char HELD = 'H';
  static final char RELEASED = 'R';

  /** The value, or null when {@code raw} is empty or not of this format. */
  static HoldValue parse(String raw) {
    if (raw == null) {
      return null;
    }
    String[] f = raw.split(" ");
    if (f.length != 5 || f[0].length() != 1 || "AHR".indexOf(f[0].charAt(0)) < 0) {
      return null;
    }
    try {
      return new HoldValue(f[0].charAt(0), Long.parseLong(f[1]), Long.parseLong(f[2]), f[3], f[4]);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** The value as the scripts write it. */
  String raw() {
    return state + " " + term + " " + seq + " " + incarnation + " " + hold;
  }

  /** The pod a hold names, or null. */
  static String podOf(String hold) {
    int slash = hold == null ? -1 : hold.indexOf('/');
    int colon = slash < 0 ? -1 : hold.indexOf(':', slash);
    return colon < 0 ? null : hold.substring(slash + 1, colon);
  }

  /** The pod IP a hold names, or null (an agent that did not know its own). */
  static String addressOf(String hold) {
    int at = hold == null ? -1 : hold.lastIndexOf('@');
    return at < 0 || !isAddress(hold.substring(at + 1)) ? null : hold.substring(at + 1);
  }

  /**
   * A hold's name: {@code n} is given to one call of this process only ({@code nonce} is its own),
   * with the pod's IP when known.
   */
  static String hold(String namespace, String pod, long term, String nonce, long n, String ip) {
    String name = "agent:" + namespace + "/" + pod + ":" + term + ":" + nonce + "-" + n;
    return isAddress(ip) ? name + "@" + ip : name;
  }

  /** An IPv4 or IPv6 address's characters only: nothing that could break the value's fields. */
  private static boolean isAddress(String ip) {
    return ip != null && !ip.isEmpty() && ip.length() <= 45 && ip.matches("[0-9a-fA-F.:]+");
  }
}
