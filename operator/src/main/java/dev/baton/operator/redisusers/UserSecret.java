package dev.baton.operator.redisusers;

import dev.baton.client.BatonNames;
import dev.baton.operator.kube.Metadata;
import dev.baton.operator.lease.RedisSecrets;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The Secret that holds a resource's Redis user: {@code url}, {@code username}, {@code password}
 * for the agent, {@code ca.crt} when its Redis is trusted through a CA of its own (a CA is no
 * secret; the sentinels' credentials, one for every tenant, are never copied here), and the SHA-256
 * of the password before the last rotation, which Redis keeps accepting until the next one. Owned
 * by the resource, so it goes with it. The Secret is the one record of the password: Redis is set
 * from it, never the other way round.
 *
 * <p>It also holds {@code relay-secret}, the key a group's agents sign their relays' preambles with
 * (BATON_AGENT_RELAY_SECRET): made once, and kept across password rotations, since agents started
 * before and after one must still take each other's relays.
 */
final class UserSecret {

  static final String URL = "url";
  static final String USERNAME = "username";
  static final String PASSWORD = "password";
  static final String PREVIOUS_HASH = "previous-password-sha256";
  static final String RELAY_SECRET = "relay-secret";
  static final String CA = RedisSecrets.CA_CERTIFICATE;

  /** On the Secret: the value of the resource's rotate annotation its password was made for. */
  static final String ROTATED_FOR = "baton.dev/rotated-for";

  /** Who the Secret's user is and where: what a password rotation keeps. */
  record Login(String username, String url, String caCertificate) {}

  /** What was found or written: the password hashes Redis is to accept, newest first. */
  record Found(List<String> passwordHashes, boolean rotated) {}

  /** The Secret exists and belongs to something else: it is never taken over. */
  static final class NotOurs extends RuntimeException {
    NotOurs(String message) {
      super(message, null, false, false);
    }
  }

  private static final SecureRandom RANDOM = new SecureRandom();

  private final KubernetesClient client;

  UserSecret(KubernetesClient client) {
    this.client = client;
  }

  /**
   * The resource's Secret, created when absent and given a new password when the resource's rotate
   * annotation differs from the one the Secret was made for.
   */
  Found ensure(HasMetadata owner, String secretName, Login login) {
    String ns = owner.getMetadata().getNamespace();
    String wanted = rotateRequest(owner);
    Secret s = client.secrets().inNamespace(ns).withName(secretName).get();
    if (s == null) {
      Secret created =
          client
              .secrets()
              .inNamespace(ns)
              .resource(build(owner, secretName, login, newPassword(), null, wanted, newPassword()))
              .create();
      return new Found(hashes(created), false);
    }
    boolean ours =
        s.getMetadata().getOwnerReferences().stream()
            .anyMatch(r -> Objects.equals(r.getUid(), owner.getMetadata().getUid()));
    if (!ours) {
      throw new NotOurs(
          "Secret " + ns + "/" + secretName + " exists and is not owned by this resource");
    }
    String madeFor = annotation(s, ROTATED_FOR);
    String relaySecret = value(s, RELAY_SECRET);
    boolean drifted =
        !login.username().equals(value(s, USERNAME))
            || !login.url().equals(value(s, URL))
            || !Objects.equals(login.caCertificate(), value(s, CA))
            || relaySecret == null;
    if (relaySecret == null) {
      relaySecret = newPassword(); // a Secret written before relays were signed
    }
    if (Objects.equals(madeFor, wanted) && !drifted && value(s, PASSWORD) != null) {
      return new Found(hashes(s), false);
    }
    boolean rotate = !Objects.equals(madeFor, wanted) || value(s, PASSWORD) == null;
    String current = value(s, PASSWORD);
    Secret next =
        rotate
            ? build(owner, secretName, login, newPassword(), current, wanted, relaySecret)
            : build(owner, secretName, login, current, previousOf(s), madeFor, relaySecret);
    next.getMetadata().setResourceVersion(s.getMetadata().getResourceVersion());
    Secret updated = client.secrets().inNamespace(ns).resource(next).update();
    return new Found(hashes(updated), rotate);
  }

  static String rotateRequest(HasMetadata owner) {
    Map<String, String> a = owner.getMetadata().getAnnotations();
    return a == null ? null : a.get(BatonNames.ROTATE_REDIS_PASSWORD_ANNOTATION);
  }

  /** {@code previous} is a password to hash, or, when {@code current} did not change, a hash. */
  private static Secret build(
      HasMetadata owner,
      String name,
      Login login,
      String password,
      String previous,
      String rotatedFor,
      String relaySecret) {
    SecretBuilder b =
        new SecretBuilder()
            .withNewMetadata()
            .withName(name)
            .withNamespace(owner.getMetadata().getNamespace())
            .addToLabels("app.kubernetes.io/managed-by", "baton-operator")
            .withOwnerReferences(Metadata.controllerReference(owner))
            .endMetadata()
            .withType("Opaque")
            .addToData(URL, encode(login.url()))
            .addToData(USERNAME, encode(login.username()))
            .addToData(PASSWORD, encode(password))
            .addToData(RELAY_SECRET, encode(relaySecret));
    if (login.caCertificate() != null) {
      b.addToData(CA, encode(login.caCertificate()));
    }
    if (previous != null) {
      String hash = previous.matches("[0-9a-f]{64}") ? previous : sha256(previous);
      b.addToData(PREVIOUS_HASH, encode(hash));
    }
    if (rotatedFor != null) {
      b.editMetadata().addToAnnotations(ROTATED_FOR, rotatedFor).endMetadata();
    }
    return b.build();
  }

  private static String previousOf(Secret s) {
    return value(s, PREVIOUS_HASH);
  }

  /** The hashes Redis accepts: the current password's, and the one before it if any. */
  static List<String> hashes(Secret s) {
    List<String> out = new ArrayList<>();
    out.add(sha256(value(s, PASSWORD)));
    String previous = value(s, PREVIOUS_HASH);
    if (previous != null && previous.matches("[0-9a-f]{64}")) {
      out.add(previous);
    }
    return List.copyOf(out);
  }

  static String newPassword() {
    byte[] bytes = new byte[32];
    RANDOM.nextBytes(bytes);
    return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  static String sha256(String password) {
    try {
      return HexFormat.of()
          .formatHex(
              MessageDigest.getInstance("SHA-256")
                  .digest(password.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("no SHA-256 in this JVM");
    }
  }

  private static String annotation(Secret s, String key) {
    Map<String, String> a = s.getMetadata().getAnnotations();
    return a == null ? null : a.get(key);
  }

  static String value(Secret s, String key) {
    Map<String, String> data = s.getData();
    String v = data == null ? null : data.get(key);
    if (v != null) {
      return new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8);
    }
    Map<String, String> plain = s.getStringData();
    return plain == null ? null : plain.get(key);
  }

  private static String encode(String v) {
    return Base64.getEncoder().encodeToString(v.getBytes(StandardCharsets.UTF_8));
  }
}
