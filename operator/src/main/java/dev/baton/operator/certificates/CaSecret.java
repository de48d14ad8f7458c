package dev.baton.operator.certificates;

import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.nio.charset.StandardCharsets;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The webhook's CA, kept in a Secret of the operator's namespace so that every replica serves
 * certificates of one CA. The API server decides every race: the Secret is created only if absent
 * (the loser of two replicas creating it at once gets 409 and adopts the winner's), and replaced
 * only over the version read (the loser of two rotations gets 409 and adopts the winner's).
 */
record CaSecret(KubernetesClient client, String namespace, String name) {

  static final String CERT = "ca.crt";
  static final String KEY = "ca.key";

  /** The CA before the last rotation: kept in the caBundle until it expires. */
  static final String PREVIOUS = "ca-previous.crt";

  /**
   * The CA as stored.
   *
   * @param previous null when the CA was never rotated, or the one before has expired
   * @param resourceVersion the Secret's, for a replacement guarded by it
   */
  record Authority(Certificates.Issued current, X509Certificate previous, String resourceVersion) {}

  String describe() {
    return "Secret " + namespace + "/" + name;
  }

  /** The stored CA, or null when there is no Secret yet. */
  Authority load() {
    Secret s = client.secrets().inNamespace(namespace).withName(name).get();
    return s == null ? null : read(s);
  }

  /** Creates the Secret with {@code mine}, or adopts the one another replica created first. */
  Authority createIfAbsent(Authority mine) {
    try {
      return read(client.secrets().inNamespace(namespace).resource(secret(mine, null)).create());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        throw e;
      }
      Authority theirs = load();
      if (theirs == null) {
        throw new IllegalStateException(describe() + " was created and deleted at once", e);
      }
      return theirs;
    }
  }

  /** Replaces {@code stored} by {@code next}, or adopts what another replica wrote meanwhile. */
  Authority replace(Authority stored, Authority next) {
    try {
      return read(
          client
              .secrets()
              .inNamespace(namespace)
              .resource(secret(next, stored.resourceVersion()))
              .update());
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409 && e.getCode() != 404) {
        throw e;
      }
      Authority now = load();
      return now != null ? now : createIfAbsent(next);
    }
  }

  private Secret secret(Authority a, String resourceVersion) {
    Map<String, String> data = new LinkedHashMap<>();
    data.put(CERT, base64(Certificates.pem(a.current().certificate())));
    data.put(KEY, base64(Certificates.pem(a.current().key())));
    if (a.previous() != null) {
      data.put(PREVIOUS, base64(Certificates.pem(a.previous())));
    }
    return new SecretBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .withResourceVersion(resourceVersion)
        .addToLabels("app.kubernetes.io/managed-by", "baton-operator")
        .addToLabels("app.kubernetes.io/component", "webhook")
        .endMetadata()
        .withType("Opaque")
        .withData(data)
        .build();
  }

  private Authority read(Secret s) {
    Map<String, String> data = s.getData() == null ? Map.of() : s.getData();
    if (!data.containsKey(CERT) || !data.containsKey(KEY)) {
      throw new IllegalStateException(
          describe()
              + " lacks "
              + CERT
              + " or "
              + KEY
              + "; delete it and the operator makes a new CA");
    }
    List<X509Certificate> certs = Certificates.certificates(text(data.get(CERT)));
    List<X509Certificate> previous =
        data.containsKey(PREVIOUS)
            ? Certificates.certificates(text(data.get(PREVIOUS)))
            : List.of();
    if (certs.isEmpty()) {
      throw new IllegalStateException(describe() + " holds no certificate in " + CERT);
    }
    return new Authority(
        new Certificates.Issued(certs.get(0), Certificates.privateKey(text(data.get(KEY)))),
        previous.isEmpty() ? null : previous.get(0),
        s.getMetadata().getResourceVersion());
  }

  private static String base64(String text) {
    return Base64.getEncoder().encodeToString(text.getBytes(StandardCharsets.US_ASCII));
  }

  private static String text(String base64) {
    return new String(Base64.getDecoder().decode(base64), StandardCharsets.US_ASCII);
  }
}
