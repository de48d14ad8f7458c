package dev.baton.operator.lease;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Turns a resource's {@code redis.secretRef} into connection settings: keys url, and optionally
 * username, password, sentinelUsername, sentinelPassword and ca.crt (PEM, for rediss://); a
 * resource without one uses the operator's default Redis. A Secret that was read successfully is
 * reused for 30 seconds, so reconciles do not read it from the API every time; a missing or broken
 * one is read again on the next try.
 */
public class RedisSecrets {

  private static final long CACHE_NANOS = 30_000_000_000L;

  /** Optional Secret keys, besides url, username and password. */
  public static final String SENTINEL_USERNAME = "sentinelUsername";

  public static final String SENTINEL_PASSWORD = "sentinelPassword";
  public static final String CA_CERTIFICATE = "ca.crt";

  private final KubernetesClient client;
  private final Map<String, Cached> cache = new ConcurrentHashMap<>();
  private final RedisSettings defaultRedis;

  /**
   * @param defaultRedis the Redis of a resource that names no Secret
   */
  public RedisSecrets(KubernetesClient client, RedisSettings defaultRedis) {
    this.client = client;
    this.defaultRedis = defaultRedis;
  }

  /** A Secret that is missing or unusable; the message names it and never shows its values. */
  public static class SecretProblem extends RuntimeException {
    /** How soon a resource whose Secret is missing or unusable looks again. */
    public static final Duration RETRY = Duration.ofSeconds(5);

    private final String reason;

    public SecretProblem(String reason, String message) {
      super(message);
      this.reason = reason;
    }

    public String reason() {
      return reason;
    }
  }

  /**
   * The Redis a resource of {@code namespace} uses: the one its Secret {@code secretName}
   * describes, or the default Redis when it names none (null).
   *
   * @throws SecretProblem when the Secret is missing or unusable
   */
  public RedisSettings settingsOrDefault(String namespace, String secretName) {
    return secretName == null ? defaultRedis : settings(namespace, secretName);
  }

  public RedisSettings settings(String namespace, String secretName) {
    String id = namespace + "/" + secretName;
    Cached c = cache.get(id);
    if (c != null && System.nanoTime() - c.readAt < CACHE_NANOS) {
      return c.settings;
    }
    Secret secret = client.secrets().inNamespace(namespace).withName(secretName).get();
    if (secret == null) {
      cache.remove(id);
      throw new SecretProblem("SecretNotFound", "Secret " + id + " not found");
    }
    String url = value(secret, "url");
    if (url == null || url.isBlank()) {
      throw new SecretProblem("InvalidSecret", "Secret " + id + " has no key 'url'");
    }
    RedisSettings settings;
    try {
      settings =
          new RedisSettings(url, value(secret, "username"), value(secret, "password"))
              .withSentinelCredentials(
                  value(secret, SENTINEL_USERNAME), value(secret, SENTINEL_PASSWORD))
              .withCaCertificate(value(secret, CA_CERTIFICATE));
    } catch (IllegalArgumentException e) {
      throw new SecretProblem("InvalidSecret", "Secret " + id + ": " + e.getMessage());
    }
    cache.put(id, new Cached(settings, System.nanoTime()));
    return settings;
  }

  private static String value(Secret secret, String key) {
    if (secret.getData() != null && secret.getData().get(key) != null) {
      return new String(
          Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
    }
    return secret.getStringData() == null ? null : secret.getStringData().get(key);
  }

  private record Cached(RedisSettings settings, long readAt) {}
}
