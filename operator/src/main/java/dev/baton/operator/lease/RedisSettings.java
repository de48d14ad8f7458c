package dev.baton.operator.lease;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Where a Redis is and how to log in. {@link #toString()} and {@link #describe()} never show the
 * password, nor credentials written into the URL.
 */
public final class RedisSettings {

  private final String url;
  private final String username;
  private final String password;

  public RedisSettings(String url, String username, String password) {
    this.url = Objects.requireNonNull(url, "url").trim();
    this.username = blankToNull(username);
    this.password = blankToNull(password);
    validate();
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
    if (!(url.startsWith("redis://") || url.startsWith("rediss://") || sentinel())) {
      throw new IllegalArgumentException(
          "Redis URL '"
              + describe()
              + "' must start with redis://, rediss:// or redis-sentinel://");
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
        && Objects.equals(password, r.password);
  }

  @Override
  public int hashCode() {
    return Objects.hash(url, username, password);
  }

  @Override
  public String toString() {
    return "RedisSettings{" + describe() + (username != null ? ", user " + username : "") + "}";
  }
}
