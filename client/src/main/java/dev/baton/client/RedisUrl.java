package dev.baton.client;

import java.net.URI;
import java.util.ArrayList;
import java.util.List;

/**
 * A Redis URL as Baton reads it, in {@code BATON_REDIS_URL} and in a Secret's {@code url}
 * (README.md, "Configuration"): {@code redis://host:port}, {@code rediss://host:port}, {@code
 * redis-sentinel://host:port,host:port/master-name}, or a Redis Cluster's seed nodes {@code
 * redis-cluster://host:port,host:port} ({@code rediss-cluster://} with TLS). Credentials may be
 * written into it as user info; {@link #describe()} and every message of {@link #parse} leave them
 * out, so those are the only forms of the URL that may reach a log, a status or an Event.
 */
public final class RedisUrl {

  /** Which kind of deployment the URL names. */
  public enum Kind {
    SINGLE,
    SENTINEL,
    CLUSTER
  }

  private static final String SENTINEL = "redis-sentinel://";

  private final String url;
  private final String plain;
  private final Kind kind;

  private RedisUrl(String url) {
    this.url = url;
    this.plain = withoutUserInfo(url);
    this.kind =
        url.startsWith(SENTINEL)
            ? Kind.SENTINEL
            : url.startsWith("redis-cluster://") || url.startsWith("rediss-cluster://")
                ? Kind.CLUSTER
                : Kind.SINGLE;
  }

  /**
   * Reads a URL, spaces around it ignored.
   *
   * @throws IllegalArgumentException saying what is wrong, with the URL as {@link #describe()}
   *     shows it
   */
  public static RedisUrl parse(String url) {
    RedisUrl u = new RedisUrl(url.trim());
    u.validate();
    return u;
  }

  /** The URL as written, credentials included: for a client's configuration, never for a log. */
  public String url() {
    return url;
  }

  /** The URL without user info, safe for messages and logs. */
  public String describe() {
    return plain;
  }

  public Kind kind() {
    return kind;
  }

  public boolean tls() {
    return url.startsWith("rediss://") || url.startsWith("rediss-cluster://");
  }

  /**
   * A cluster's seed nodes as {@code redis://} (or {@code rediss://}) addresses, or a sentinel
   * URL's sentinels as {@code redis://} addresses; nothing for a single server.
   */
  public List<String> nodes() {
    return switch (kind) {
      case CLUSTER -> hosts(tls() ? "rediss://" : "redis://");
      case SENTINEL -> hosts("redis://");
      case SINGLE -> List.of();
    };
  }

  /** The master name of a sentinel URL, else null. */
  public String sentinelMaster() {
    if (kind != Kind.SENTINEL) {
      return null;
    }
    String rest = plain.substring(SENTINEL.length());
    return rest.substring(rest.indexOf('/') + 1);
  }

  /** The user info written into the URL ({@code user:password}, or a password alone), or null. */
  public String userInfo() {
    int scheme = url.indexOf("://");
    int at = url.lastIndexOf('@');
    return scheme < 0 || at < scheme ? null : url.substring(scheme + 3, at);
  }

  /** The user named in the URL's user info ({@code user:password}), or null. */
  public String username() {
    String info = userInfo();
    if (info == null || !info.contains(":")) {
      return null;
    }
    String name = info.substring(0, info.indexOf(':'));
    return name.isEmpty() ? null : name;
  }

  /**
   * The password in the URL's user info: after the colon, or the whole user info when it has none
   * ({@code redis://secret@host:6379}); null without user info.
   */
  public String password() {
    String info = userInfo();
    if (info == null) {
      return null;
    }
    return info.contains(":") ? info.substring(info.indexOf(':') + 1) : info;
  }

  /** The host:port list after the scheme, without a path, as addresses of the given scheme. */
  private List<String> hosts(String scheme) {
    String hosts = plain.substring(plain.indexOf("://") + 3);
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

  private static String withoutUserInfo(String url) {
    int scheme = url.indexOf("://");
    int at = url.lastIndexOf('@');
    if (scheme < 0 || at < scheme) {
      return url;
    }
    return url.substring(0, scheme + 3) + url.substring(at + 1);
  }

  private void validate() {
    if (!(url.startsWith("redis://") || url.startsWith("rediss://") || kind != Kind.SINGLE)) {
      throw new IllegalArgumentException(
          "Redis URL '"
              + plain
              + "' must start with redis://, rediss://, redis-sentinel://, redis-cluster:// or"
              + " rediss-cluster://");
    }
    switch (kind) {
      case CLUSTER -> {
        List<String> seeds = nodes();
        if (seeds.isEmpty()) {
          throw new IllegalArgumentException(
              "Redis URL '"
                  + plain
                  + "' must name at least one node: redis-cluster://host:port,host:port");
        }
        for (String seed : seeds) {
          URI uri = uri(seed);
          if (uri.getHost() == null || uri.getPort() <= 0) {
            throw new IllegalArgumentException(
                "Redis URL '"
                    + plain
                    + "': every node needs a host and a port, as in"
                    + " redis-cluster://host:port,host:port");
          }
        }
      }
      case SENTINEL -> {
        String rest = plain.substring(SENTINEL.length());
        if (!rest.contains("/") || rest.endsWith("/")) {
          throw new IllegalArgumentException(
              "Redis URL '"
                  + plain
                  + "' must name the master: redis-sentinel://host:port,host:port/master-name");
        }
        if (nodes().isEmpty()) {
          throw new IllegalArgumentException(
              "Redis URL '"
                  + plain
                  + "' must name at least one sentinel:"
                  + " redis-sentinel://host:port,host:port/master-name");
        }
      }
      case SINGLE -> {
        // User info included: a URL that a Redis client cannot read as a whole is refused here,
        // with a message, rather than at the first connection.
        URI uri = uri(url);
        if (uri.getHost() == null || uri.getPort() <= 0) {
          throw new IllegalArgumentException(
              "Redis URL '" + plain + "' must have a host and a port");
        }
      }
    }
  }

  private URI uri(String address) {
    try {
      return URI.create(address);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Redis URL '" + plain + "' is not a valid URL");
    }
  }
}
