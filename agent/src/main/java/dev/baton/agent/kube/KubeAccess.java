package dev.baton.agent.kube;

import dev.baton.client.KubernetesApi;
import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * How the agent reaches the Kubernetes API: a kubeconfig when {@code KUBECONFIG} names one (its
 * current context's server, CA, and token or client certificate), else the pod's service account,
 * else {@code ~/.kube/config}.
 */
public final class KubeAccess {

  private KubeAccess() {}

  /** The API by the rules above; {@code home} is where {@code ~/.kube/config} is looked for. */
  public static KubernetesApi resolve(Map<String, String> env, Path home) {
    String kubeconfig = env.get("KUBECONFIG");
    if (kubeconfig != null && !kubeconfig.isBlank()) {
      // kubectl merges a list of files; the first one that exists is enough for one context
      for (String file : kubeconfig.split(java.io.File.pathSeparator)) {
        if (!file.isBlank() && Files.isRegularFile(Path.of(file.trim()))) {
          return fromKubeconfig(Path.of(file.trim()));
        }
      }
      throw new IllegalStateException("KUBECONFIG names no readable file: " + kubeconfig);
    }
    if (KubernetesApi.inCluster(env)) {
      return KubernetesApi.fromServiceAccount(env);
    }
    Path fallback = home.resolve(".kube").resolve("config");
    if (Files.isRegularFile(fallback)) {
      return fromKubeconfig(fallback);
    }
    throw new IllegalStateException(
        "no Kubernetes API: not in a pod (KUBERNETES_SERVICE_HOST unset), KUBECONFIG unset, and no "
            + fallback);
  }

  /** The current context of a kubeconfig file. */
  @SuppressWarnings("unchecked")
  public static KubernetesApi fromKubeconfig(Path file) {
    Map<String, Object> root;
    try (InputStream in = Files.newInputStream(file)) {
      root = (Map<String, Object>) new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
    } catch (IOException | RuntimeException e) {
      throw new IllegalStateException("cannot read the kubeconfig " + file + ": " + e.getMessage());
    }
    if (root == null) {
      throw new IllegalStateException("the kubeconfig " + file + " is empty");
    }
    Path dir = file.toAbsolutePath().getParent();
    String contextName = (String) root.get("current-context");
    Map<String, Object> context = named(root, "contexts", "context", contextName, file);
    Map<String, Object> cluster =
        named(root, "clusters", "cluster", (String) context.get("cluster"), file);
    Object userName = context.get("user");
    Map<String, Object> user =
        userName == null ? Map.of() : named(root, "users", "user", (String) userName, file);
    String server = (String) cluster.get("server");
    if (server == null || server.isBlank()) {
      throw new IllegalStateException("the kubeconfig " + file + " names no server");
    }
    if (user.containsKey("exec") || user.containsKey("auth-provider")) {
      throw new IllegalStateException(
          "the kubeconfig "
              + file
              + " logs in through a plugin (exec or auth-provider), which the agent does not run;"
              + " use a token or a client certificate");
    }
    try {
      return new KubernetesApi(
          URI.create(server.trim().replaceAll("/+$", "")),
          token(user, dir),
          server.startsWith("https") ? tls(cluster, user, dir) : null);
    } catch (IllegalStateException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(
          "the kubeconfig " + file + " has unusable credentials: " + e.getMessage(), e);
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> named(
      Map<String, Object> root, String list, String field, String name, Path file) {
    List<Map<String, Object>> items = (List<Map<String, Object>>) root.get(list);
    if (items != null) {
      for (Map<String, Object> item : items) {
        if (name == null || name.equals(item.get("name"))) {
          Map<String, Object> body = (Map<String, Object>) item.get(field);
          return body == null ? Map.of() : body;
        }
      }
    }
    throw new IllegalStateException(
        "the kubeconfig " + file + " has no " + field + " named '" + name + "'");
  }

  private static Supplier<String> token(Map<String, Object> user, Path dir) {
    Object token = user.get("token");
    if (token != null) {
      String t = token.toString().trim();
      return () -> t;
    }
    Object tokenFile = user.get("tokenFile");
    if (tokenFile != null) {
      Path p = dir.resolve(tokenFile.toString());
      return () -> {
        try {
          return Files.readString(p).trim();
        } catch (IOException e) {
          throw new IllegalStateException("cannot read the token file " + p);
        }
      };
    }
    return null;
  }

  private static SSLContext tls(Map<String, Object> cluster, Map<String, Object> user, Path dir)
      throws Exception {
    TrustManager[] trust = null;
    if (Boolean.TRUE.equals(cluster.get("insecure-skip-tls-verify"))) {
      trust = new TrustManager[] {new TrustingEveryone()};
    } else {
      byte[] ca = bytes(cluster, "certificate-authority", dir);
      if (ca != null) {
        KeyStore store = KeyStore.getInstance(KeyStore.getDefaultType());
        store.load(null, null);
        int i = 0;
        for (Certificate c : Pem.certificates(ca)) {
          store.setCertificateEntry("ca-" + i++, c);
        }
        TrustManagerFactory tmf =
            TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        trust = tmf.getTrustManagers();
      }
    }
    KeyManager[] keys = null;
    byte[] cert = bytes(user, "client-certificate", dir);
    byte[] key = bytes(user, "client-key", dir);
    if (cert != null && key != null) {
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      char[] none = new char[0];
      store.setKeyEntry(
          "client", Pem.privateKey(key), none, Pem.certificates(cert).toArray(new Certificate[0]));
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(store, none);
      keys = kmf.getKeyManagers();
    }
    SSLContext ctx = SSLContext.getInstance("TLS");
    ctx.init(keys, trust, new SecureRandom());
    return ctx;
  }

  /** {@code <name>-data} (base64) or {@code <name>} (a file, relative to the kubeconfig). */
  private static byte[] bytes(Map<String, Object> section, String name, Path dir)
      throws IOException {
    Object data = section.get(name + "-data");
    if (data != null) {
      return Base64.getMimeDecoder().decode(data.toString().getBytes(StandardCharsets.US_ASCII));
    }
    Object file = section.get(name);
    return file == null ? null : Files.readAllBytes(dir.resolve(file.toString()));
  }

  /** What {@code insecure-skip-tls-verify: true} asks for. */
  private static final class TrustingEveryone implements X509TrustManager {
    @Override
    public void checkClientTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public void checkServerTrusted(X509Certificate[] chain, String authType) {}

    @Override
    public X509Certificate[] getAcceptedIssuers() {
      return new X509Certificate[0];
    }
  }
}
