package dev.baton.operator.lease;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Where a Redis is and how to log in: URL, credentials, the sentinels' own credentials and a CA to
 * trust for rediss://. {@link #toString()} and {@link #describe()} never show a password, nor
 * credentials written into the URL.
 */
public final class RedisSettings {

  private final String url;
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
    this.url = Objects.requireNonNull(url, "url").trim();
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
        url, username, password, sentinelUsername, sentinelPassword, caCertificate);
  }

  /** The same settings trusting these PEM CA certificates for TLS (a rediss:// URL only). */
  public RedisSettings withCaCertificate(String pem) {
    return new RedisSettings(url, username, password, sentinelUsername, sentinelPassword, pem);
  }

  public String url() {
    return url;
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
    return url.startsWith("rediss://") || url.startsWith("rediss-cluster://");
  }

  /** A Redis Cluster, reached through the seed nodes of a redis-cluster:// URL. */
  public boolean cluster() {
    return url.startsWith("redis-cluster://") || url.startsWith("rediss-cluster://");
  }

  /** The seed nodes of a cluster URL as redis:// (or rediss://) addresses. */
  public List<String> clusterAddresses() {
    String describe = withoutUserInfo();
    String scheme = describe.startsWith("rediss-cluster://") ? "rediss://" : "redis://";
    String hosts = describe.substring(describe.indexOf("://") + 3);
    if (hosts.contains("/")) {
      hosts = hosts.substring(0, hosts.indexOf('/'));
    }
    List<String> out = new ArrayList<>();
    for (String h : hosts.split(",")) {
      if (!h.isBlank()) {
        out.add(scheme + h.trim());
      }
    }
    return out;
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
    int scheme = url.indexOf("://");
    int at = url.lastIndexOf('@');
    if (scheme >= 0 && at > scheme) {
      String userInfo = url.substring(scheme + 3, at);
      out.add(userInfo);
      if (userInfo.contains(":")) {
        out.add(userInfo.substring(userInfo.indexOf(':') + 1));
      }
    }
    out.removeIf(String::isEmpty);
    return out;
  }

  public boolean sentinel() {
    return url.startsWith("redis-sentinel://");
  }

  /** The sentinel addresses as redis:// URLs (only for a redis-sentinel:// URL). */
  public List<String> sentinelAddresses() {
    String rest = withoutUserInfo().substring("redis-sentinel://".length());
    String hosts = rest.contains("/") ? rest.substring(0, rest.indexOf('/')) : rest;
    List<String> out = new ArrayList<>();
    for (String h : hosts.split(",")) {
      out.add("redis://" + h.trim());
    }
    return out;
  }

  /** The master name of a redis-sentinel:// URL. */
  public String sentinelMaster() {
    String rest = url.substring("redis-sentinel://".length());
    return rest.substring(rest.indexOf('/') + 1);
  }

  /** The URL without user info, safe for messages and logs. */
  public String describe() {
    return withoutUserInfo();
  }

  private String withoutUserInfo() {
    int scheme = url.indexOf("://");
    int at = url.lastIndexOf('@');
    if (scheme < 0 || at < scheme) {
      return url;
    }
    return url.substring(0, scheme + 3) + url.substring(at + 1);
  }

  private void validate() {
    if (!(url.startsWith("redis://") || url.startsWith("rediss://") || sentinel() || cluster())) {
      throw new IllegalArgumentException(
          "Redis URL '"
              + describe()
              + "' must start with redis://, rediss://, redis-sentinel://, redis-cluster:// or"
              + " rediss-cluster://");
    }
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
    if (cluster()) {
      List<String> seeds = clusterAddresses();
      if (seeds.isEmpty()) {
        throw new IllegalArgumentException(
            "Redis URL '"
                + describe()
                + "' must name at least one node: redis-cluster://host:port,host:port");
      }
      for (String seed : seeds) {
        URI uri;
        try {
          uri = URI.create(seed);
        } catch (IllegalArgumentException e) {
          throw new IllegalArgumentException("Redis URL '" + describe() + "' is not a valid URL");
        }
        if (uri.getHost() == null || uri.getPort() <= 0) {
          throw new IllegalArgumentException(
              "Redis URL '"
                  + describe()
                  + "': every node needs a host and a port, as in redis-cluster://host:port,host:port");
        }
      }
      return;
    }
    if (sentinel()) {
      String rest = url.substring("redis-sentinel://".length());
      if (!rest.contains("/") || rest.endsWith("/")) {
        throw new IllegalArgumentException(
            "Redis URL '"
                + describe()
                + "' must name the master: redis-sentinel://host:port,host:port/master-name");
      }
      return;
    }
    try {
      URI uri = URI.create(url);
      if (uri.getHost() == null || uri.getPort() <= 0) {
        throw new IllegalArgumentException(
            "Redis URL '" + describe() + "' must have a host and a port");
      }
    } catch (IllegalArgumentException e) {
      if (e.getMessage() != null && e.getMessage().startsWith("Redis URL")) {
        throw e;
      }
      throw new IllegalArgumentException("Redis URL '" + describe() + "' is not a valid URL");
    }
  }

  private static String blankToNull(String s) {
    return s == null || s.isBlank() ? null : s;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof RedisSettings r
        && url.equals(r.url)
        && Objects.equals(username, r.username)
        && Objects.equals(password, r.password)
        && Objects.equals(sentinelUsername, r.sentinelUsername)
        && Objects.equals(sentinelPassword, r.sentinelPassword)
        && Objects.equals(caCertificate, r.caCertificate);
  }

  @Override
  public int hashCode() {
    return Objects.hash(url, username, password, sentinelUsername, sentinelPassword, caCertificate);
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
