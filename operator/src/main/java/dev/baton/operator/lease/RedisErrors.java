package dev.baton.operator.lease;

import java.net.ConnectException;
import java.security.cert.CertificateException;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import javax.net.ssl.SSLException;

/**
 * Says in a few words why Redis failed (wrong password, missing ACL permission, untrusted TLS
 * certificate, refused connection, timeout) for conditions and Events. Client library messages are
 * only quoted for Redis's own error replies, and every password is scrubbed from them.
 */
final class RedisErrors {

  private RedisErrors() {}

  /** Redis's error replies, which Redisson puts at the start of its exception messages. */
  private static final Pattern REPLY =
      Pattern.compile(
          "^(ERR|WRONGPASS|NOAUTH|NOPERM|NOSCRIPT|READONLY|LOADING|MASTERDOWN|OOM|BUSY|WRONGTYPE"
              + "|MISCONF|NOREPLICAS|EXECABORT|CROSSSLOT|CLUSTERDOWN|TRYAGAIN) .*",
          Pattern.DOTALL);

  static String explain(Throwable e, List<String> secrets) {
    return scrub(why(e, Causes.of(e)), secrets);
  }

  /**
   * What the chain of causes shows, from the exception down.
   *
   * @param reply the first of Redis's error replies in it, or null
   * @param deepest the message of the deepest cause that has one, or null
   */
  private record Causes(
      String reply,
      String deepest,
      boolean tls,
      boolean untrusted,
      boolean refused,
      boolean timeout) {

    static Causes of(Throwable e) {
      String reply = null;
      String deepest = null;
      boolean tls = false;
      boolean untrusted = false;
      boolean refused = false;
      boolean timeout = false;
      for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
        String m = t.getMessage() == null ? "" : t.getMessage();
        String upper = m.toUpperCase(Locale.ROOT);
        if (!m.isEmpty()) {
          deepest = m;
        }
        if (reply == null && REPLY.matcher(m).matches()) {
          reply = firstLine(m);
        }
        if (t instanceof SSLException || t instanceof CertificateException) {
          tls = true;
        }
        if (upper.contains("PKIX") || upper.contains("CERTIFICATE")) {
          untrusted = true;
        }
        if (t instanceof ConnectException || upper.contains("CONNECTION REFUSED")) {
          refused = true;
        }
        if (t.getClass().getSimpleName().contains("Timeout") || upper.contains("TIMED OUT")) {
          timeout = true;
        }
      }
      return new Causes(reply, deepest, tls, untrusted, refused, timeout);
    }
  }

  /** Redis's own reply says most; then the TLS handshake, the sentinels, the connection. */
  private static String why(Throwable e, Causes c) {
    if (c.reply() != null) {
      return replied(c.reply());
    }
    if (c.untrusted()) {
      return "TLS handshake failed: the server certificate is not trusted (give the CA in the"
          + " Secret key ca.crt or BATON_REDIS_CA_FILE)";
    }
    if (c.tls()) {
      return "TLS handshake failed";
    }
    if (c.deepest() != null && c.deepest().contains("sentinel servers")) {
      return "no sentinel could be used: check the sentinel addresses and credentials (Secret"
          + " keys sentinelUsername and sentinelPassword, or BATON_REDIS_SENTINEL_USERNAME and"
          + " BATON_REDIS_SENTINEL_PASSWORD); the operator's log has each sentinel's reply";
    }
    if (c.refused()) {
      return "connection refused";
    }
    if (c.timeout()) {
      return "no answer in time";
    }
    if (c.deepest() != null) {
      return e.getClass().getSimpleName() + ": " + firstLine(c.deepest());
    }
    return e.getClass().getSimpleName();
  }

  private static String replied(String reply) {
    if (reply.startsWith("WRONGPASS")) {
      return "wrong username or password (" + reply + ")";
    }
    if (reply.startsWith("NOAUTH")) {
      return "Redis requires a password and none was given";
    }
    if (reply.startsWith("NOPERM")
        || reply.contains("can't run this")
        || reply.contains("can't access")) {
      return "the Redis user lacks a permission Baton needs ("
          + reply
          + "); see docs/redis-acl.md, and ACL LOG on the server for the command";
    }
    return "Redis answered " + reply;
  }

  static String scrub(String text, List<String> secrets) {
    String out = text;
    for (String s : secrets) {
      if (s != null && !s.isEmpty()) {
        out = out.replace(s, "***");
      }
    }
    return out;
  }

  private static String firstLine(String s) {
    int nl = s.indexOf('\n');
    String line = nl < 0 ? s : s.substring(0, nl);
    // Redisson appends the channel, command and parameters after the server's reply: keep only
    // the reply.
    int detail = line.indexOf(". channel:");
    if (detail > 0) {
      line = line.substring(0, detail);
    }
    if (line.endsWith(".")) {
      line = line.substring(0, line.length() - 1);
    }
    return line.length() > 200 ? line.substring(0, 200) + "..." : line;
  }
}
