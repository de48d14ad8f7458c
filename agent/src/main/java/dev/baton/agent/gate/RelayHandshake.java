package dev.baton.agent.gate;

import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.function.Supplier;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * What a relay says first on a leader-only gate, and how that gate judges it: {@code BATON-RELAY/3
 * <namespace>/<group> <term> <port> <mac>\n}. The relay names the group and the term of the holder
 * it believes leads; the gate refuses another group's relay (a stale leader IP now given to another
 * group's leader on the same port must not receive the clients' bytes) and one for a term older
 * than the one its gate opened with (the relay read an earlier holder). With a relay secret ({@code
 * BATON_AGENT_RELAY_SECRET}, one per group) the line carries an HMAC-SHA256 of the rest, so that
 * only the group's own agents are taken; without one, {@code -}.
 *
 * <p>Version 3 asks the gate to say, before the first byte it passes either way, whether it passes
 * them ({@link Gate#PASSING}) or hands the connection back unpassed ({@link Gate#HANDED_BACK}), so
 * that a relay can carry bytes already sent to a gate that shut to the next one. A gate takes
 * version 2 as before (no such byte), so that agents of both versions relay to each other during a
 * rolling upgrade: it refuses a version 3 line with a word ({@link Gate#REFUSED}), and a relay
 * whose line was reset without one asks again on version 2 at once.
 *
 * <p>The line is read by the gate's event loop ({@link Preamble}) with one deadline for the whole
 * of it, {@link #DEADLINE_MILLIS}, and at most {@link #MAX_BYTES} bytes: a connection that trickles
 * its preamble holds no thread, and is reset at the deadline.
 */
public final class RelayHandshake {

  static final String VERSION = "BATON-RELAY/3";

  /**
   * The version before the gate's word on passing; taken, never said but to a gate that refused.
   */
  static final String VERSION_2 = "BATON-RELAY/2";

  static final int MAX_BYTES = 320;
  static final int DEADLINE_MILLIS = 1000;
  private static final int MAC_HEX = 32;

  private final String namespace;
  private final int port;
  private final byte[] secret; // null: no MAC
  private volatile Supplier<String> group = () -> null;

  /**
   * @param port the leader-only port relays connect to
   * @param secret the group's relay secret, or null
   */
  public RelayHandshake(String namespace, int port, String secret) {
    this.namespace = namespace;
    this.port = port;
    this.secret =
        secret == null || secret.isBlank() ? null : secret.getBytes(StandardCharsets.UTF_8);
  }

  /** Where the agent's own group comes from: its pod's annotation, as the leadership last read. */
  public void groupFrom(Supplier<String> group) {
    this.group = group;
  }

  /** The line a relay says for a holder of {@code term}; null while the agent knows no group. */
  byte[] say(long term) {
    return say(term, VERSION);
  }

  /** The line of {@code version} ({@link #VERSION} or {@link #VERSION_2}). */
  byte[] say(long term, String version) {
    String g = group.get();
    if (g == null) {
      return null;
    }
    String body = version + " " + namespace + "/" + g + " " + term + " " + port;
    return (body + " " + mac(body) + "\n").getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Why a leader-only gate whose window opened for {@code openTerm} refuses {@code line}, or null.
   */
  String refusal(String line, long openTerm) {
    if (line == null) {
      return "no preamble within " + DEADLINE_MILLIS + " ms and " + MAX_BYTES + " bytes";
    }
    String[] f = line.split(" ", -1);
    if (f.length != 5 || !(f[0].equals(VERSION) || f[0].equals(VERSION_2))) {
      return "not a relay's preamble";
    }
    String body = f[0] + " " + f[1] + " " + f[2] + " " + f[3];
    if (!MessageDigest.isEqual(
        f[4].getBytes(StandardCharsets.US_ASCII), mac(body).getBytes(StandardCharsets.US_ASCII))) {
      return "a preamble without this group's relay secret";
    }
    String g = group.get();
    if (g == null || !f[1].equals(namespace + "/" + g)) {
      return "a relay for " + f[1] + ", not this pod's group";
    }
    if (!f[3].equals(Integer.toString(port))) {
      return "a relay for port " + f[3];
    }
    long term;
    try {
      term = Long.parseLong(f[2]);
    } catch (NumberFormatException e) {
      return "not a relay's preamble";
    }
    if (term < openTerm) {
      return "a relay for term " + term + ", older than this gate's " + openTerm;
    }
    return null;
  }

  /** Whether a line the gate took asks it to say whether it passes ({@link #VERSION}). */
  static boolean asksForPassing(String line) {
    return line.startsWith(VERSION + " ");
  }

  private String mac(String body) {
    if (secret == null) {
      return "-";
    }
    try {
      Mac m = Mac.getInstance("HmacSHA256");
      m.init(new SecretKeySpec(secret, "HmacSHA256"));
      byte[] d = m.doFinal(body.getBytes(StandardCharsets.US_ASCII));
      return HexFormat.of().formatHex(d).substring(0, MAC_HEX);
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HmacSHA256 is unavailable", e);
    }
  }
}
