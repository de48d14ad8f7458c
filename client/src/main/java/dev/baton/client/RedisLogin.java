package dev.baton.client;

import javax.net.ssl.TrustManagerFactory;

/**
 * Who a Baton process is to its Redis: the data credentials, the sentinels' own, and the CAs it
 * trusts. A credential not given here is taken from the URL's user info. {@link #toString()} shows
 * no password.
 *
 * @param sentinelUsername the sentinels' own user (a sentinel URL only); null: the data credentials
 *     are offered to the sentinels
 * @param trust the CAs a {@code rediss://} server's certificate is checked against; null: the JVM's
 */
public record RedisLogin(
    String username,
    String password,
    String sentinelUsername,
    String sentinelPassword,
    TrustManagerFactory trust) {

  /** Data credentials only, trusting the JVM's CAs. */
  public static RedisLogin of(String username, String password) {
    return new RedisLogin(username, password, null, null, null);
  }

  /** This login with the URL's user info where it gives no credential of its own. */
  public RedisLogin orFrom(RedisUrl url) {
    return new RedisLogin(
        username != null ? username : url.username(),
        password != null ? password : url.password(),
        sentinelUsername,
        sentinelPassword,
        trust);
  }

  @Override
  public String toString() {
    return "RedisLogin{"
        + (username != null ? "user " + username : "no user")
        + (sentinelUsername != null ? ", sentinel user " + sentinelUsername : "")
        + (trust != null ? ", own CA" : "")
        + "}";
  }
}
