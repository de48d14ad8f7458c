package dev.baton.client;

import java.util.List;

/**
 * The Redis keys of one lock: {@code baton:{key}:lock} holds the holder's value with a PX expiry,
 * {@code baton:{key}:token} the fencing-token counter, {@code baton:{key}:reserved} how far tokens
 * are reserved and {@code baton:{key}:reserved-replid} in which replication history (see {@code
 * reservation.lua}). All share the hash tag {key}, so one script can touch them together on Redis
 * Cluster.
 */
public record LockKeys(String key) {

  public static final int MAX_KEY_LENGTH = 253;

  public LockKeys {
    if (key == null || key.isBlank()) {
      throw new IllegalArgumentException("a lock key must not be empty");
    }
    if (key.length() > MAX_KEY_LENGTH) {
      throw new IllegalArgumentException(
          "a lock key must be at most " + MAX_KEY_LENGTH + " characters");
    }
    if (key.contains("{") || key.contains("}")) {
      throw new IllegalArgumentException(
          "a lock key must not contain braces: Baton wraps it in a Redis hash tag");
    }
  }

  /** The key a RedisLock uses when its spec names none. */
  public static LockKeys forResource(String namespace, String name) {
    return new LockKeys(namespace + "/" + name);
  }

  public String lock() {
    return "baton:{" + key + "}:lock";
  }

  public String token() {
    return "baton:{" + key + "}:token";
  }

  public String reservation() {
    return "baton:{" + key + "}:reserved";
  }

  /** The replication id of the Redis data the reservation was written into. */
  public String reservedReplid() {
    return "baton:{" + key + "}:reserved-replid";
  }

  List<Object> both() {
    return List.of(lock(), token());
  }

  List<Object> all() {
    return List.of(lock(), token(), reservation(), reservedReplid());
  }
}
