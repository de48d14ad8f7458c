package dev.baton.operator.lease;

import dev.baton.client.CaCertificates;
import dev.baton.client.RedisUrl;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Where a Redis is and how to log in: URL (read by {@link RedisUrl}), credentials, the sentinels'
 * own credentials and a CA to trust for rediss://. {@link #toString()} and {@link #describe()}
 * never show a password, nor credentials written into the URL.
 */
public final class RedisSettings {

  private final RedisUrl url;
  private final String username;
  private final String password;
  private final String sentinelUsername;
  private final String sentinelPassword;
  private final String caCertificate;

  public RedisSettings(String url, String username, String password) {
    this(url, username, password, null, null, null);
  }

  private RedisSettings(
      String url,
      String username,
      String password,
      String sentinelUsername,
      String sentinelPassword,
      String caCertificate) {
    this.url = RedisUrl.parse(Objects.requireNonNull(url, "url"));
    this.username = blankToNull(username);
    this.password = blankToNull(password);
    this.sentinelUsername = blankToNull(sentinelUsername);
    this.sentinelPassword = blankToNull(sentinelPassword);
    this.caCertificate = blankToNull(caCertificate);
    validate();
  }

  /**
   * The same settings with credentials for the sentinels themselves (a redis-sentinel:// URL only);
   * without them the client offers the data nodes' credentials to the sentinels, which a sentinel
   * without a password accepts.
   */
  public RedisSettings withSentinelCredentials(String sentinelUsername, String sentinelPassword) {
    return new RedisSettings(
        url.url(), username, password, sentinelUsername, sentinelPassword, caCertificate);
  }

  /** The same settings trusting these PEM CA certificates for TLS (a rediss:// URL only). */
  public RedisSettings withCaCertificate(String pem) {
    return new RedisSettings(
        url.url(), username, password, sentinelUsername, sentinelPassword, pem);
  }

  /** The URL as written, credentials included: what a single server's client is given. */
  public String url() {
    return url.url();
  }

  public String username() {
    return username;
  }

  public String password() {
    return password;
  }

  public String sentinelUsername() {
    return sentinelUsername;
  }

  public String sentinelPassword() {
    return sentinelPassword;
  }

  /** PEM CA certificates to trust instead of the JVM's, or null. */
  public String caCertificate() {
    return caCertificate;
  }

  public boolean tls() {
    return url.tls();
  }

  /** A Redis Cluster, reached through the seed nodes of a redis-cluster:// URL. */
  public boolean cluster() {
    return url.kind() == RedisUrl.Kind.CLUSTER;
  }

  /** The seed nodes of a cluster URL as redis:// (or rediss://) addresses. */
  public List<String> clusterAddresses() {
    return url.nodes();
  }

  /** The passwords set, for scrubbing them out of third-party messages. */
  List<String> secrets() {
    List<String> out = new ArrayList<>();
    if (password != null) {
      out.add(password);
    }
    if (sentinelPassword != null) {
      out.add(sentinelPassword);
    }
    if (url.userInfo() != null) {
      out.add(url.userInfo());
      out.add(url.password());
    }
    out.removeIf(String::isEmpty);
    return out;
  }

  public boolean sentinel() {
    return url.kind() == RedisUrl.Kind.SENTINEL;
  }

  /** The sentinel addresses as redis:// URLs (only for a redis-sentinel:// URL). */
  public List<String> sentinelAddresses() {
    return url.nodes();
  }

  /** The master name of a redis-sentinel:// URL. */
  public String sentinelMaster() {
    return url.sentinelMaster();
  }

  /** The URL without user info, safe for messages and logs. */
  public String describe() {
    return url.describe();
  }

  /** What only the credentials and the CA can get wrong; the URL itself was read already. */
  private void validate() {
    if (caCertificate != null) {
      if (!tls()) {
        throw new IllegalArgumentException(
            "a CA certificate is only used with a rediss:// or rediss-cluster:// URL,"
                + " not with '"
                + describe()
                + "'");
      }
      CaCertificates.parse(caCertificate);
    }
    if ((sentinelUsername != null || sentinelPassword != null) && !sentinel()) {
      throw new IllegalArgumentException(
          "sentinel credentials are only used with a"
              + " redis-sentinel:// URL, not with '"
              + describe()
              + "'");
    }
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RedisSettings r
        && url().equals(r.url())
        && Objects.equals(username, r.username)
        && Objects.equals(password, r.password)
        && Objects.equals(sentinelUsername, r.sentinelUsername)
        && Objects.equals(sentinelPassword, r.sentinelPassword)
        && Objects.equals(caCertificate, r.caCertificate);
  }

  @Override
  public int hashCode() {
    return Objects.hash(
        url(), username, password, sentinelUsername, sentinelPassword, caCertificate);
  }

  @Override
  public String toString() {
    return "RedisSettings{"
        + describe()
        + (username != null ? ", user " + username : "")
        + (sentinelUsername != null ? ", sentinel user " + sentinelUsername : "")
        + (caCertificate != null ? ", own CA" : "")
        + "}";
  }
}
