package dev.baton.client;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * Where the Kubernetes API is and how to authenticate to it: a bearer token (read again on every
 * request, since a projected service-account token rotates) and the TLS context (trusted CA, client
 * certificate). Either may be null, as against a local test server.
 */
public record KubernetesApi(URI server, Supplier<String> token, SSLContext tls) {

  private static final Path SERVICE_ACCOUNT =
      Path.of("/var/run/secrets/kubernetes.io/serviceaccount");

  /** A server that needs no credentials (tests, a local proxy). */
  public static KubernetesApi withoutCredentials(URI server) {
    return new KubernetesApi(server, null, null);
  }

  /** Whether {@code env} says this process runs in a pod (KUBERNETES_SERVICE_HOST is set). */
  public static boolean inCluster(Map<String, String> env) {
    String host = env.get("KUBERNETES_SERVICE_HOST");
    return host != null && !host.isBlank();
  }

  /** In a pod: the API server's Service and the pod's service account (token and CA). */
  public static KubernetesApi fromServiceAccount(Map<String, String> env) {
    String host = env.get("KUBERNETES_SERVICE_HOST");
    if (host == null || host.isBlank()) {
      throw new IllegalStateException("not in a pod: KUBERNETES_SERVICE_HOST is not set");
    }
    String port = env.getOrDefault("KUBERNETES_SERVICE_PORT", "443");
    String h = host.contains(":") ? "[" + host + "]" : host;
    return new KubernetesApi(
        URI.create("https://" + h + ":" + port),
        () -> read(SERVICE_ACCOUNT.resolve("token")),
        trusting(SERVICE_ACCOUNT.resolve("ca.crt")));
  }

  private static String read(Path file) {
    try {
      return Files.readString(file).trim();
    } catch (IOException e) {
      throw new IllegalStateException("cannot read " + file + ": " + e.getMessage());
    }
  }

  private static SSLContext trusting(Path caFile) {
    try (InputStream in = Files.newInputStream(caFile)) {
      KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
      store.load(null, null);
      int i = 0;
      for (var cert : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
        store.setCertificateEntry("ca-" + i++, (X509Certificate) cert);
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(store);
      SSLContext ctx = SSLContext.getInstance("TLS");
      ctx.init(null, tmf.getTrustManagers(), null);
      return ctx;
    } catch (Exception e) {
      throw new IllegalStateException(
          "cannot trust the API server's CA " + caFile + ": " + e.getMessage(), e);
    }
  }
}
