package dev.baton.agent.kube;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.client.KubernetesApi;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KubeAccessTest {

  @TempDir Path dir;

  @Test
  void theCurrentContextsServerAndTokenAreUsed() throws Exception {
    Path config = dir.resolve("config");
    Files.writeString(
        config,
        """
        apiVersion: v1
        kind: Config
        current-context: b
        clusters:
        - {name: one, cluster: {server: "http://one:1"}}
        - {name: two, cluster: {server: "http://two:2/"}}
        contexts:
        - {name: a, context: {cluster: one, user: u1}}
        - {name: b, context: {cluster: two, user: u2}}
        users:
        - {name: u1, user: {token: t1}}
        - {name: u2, user: {token: t2}}
        """);
    KubernetesApi api = KubeAccess.resolve(Map.of("KUBECONFIG", config.toString()), dir);
    assertThat(api.server().toString()).isEqualTo("http://two:2");
    assertThat(api.token().get()).isEqualTo("t2");
    assertThat(api.tls()).isNull();
  }

  @Test
  void aClientCertificateAndACaFromFilesMakeATlsContext() throws Exception {
    for (String f : new String[] {"ec.key", "ec.crt", "rsa.crt"}) {
      try (var in = KubeAccessTest.class.getResourceAsStream("/pem/" + f)) {
        Files.write(dir.resolve(f), in.readAllBytes());
      }
    }
    Path config = dir.resolve("config");
    Files.writeString(
        config,
        """
        current-context: a
        clusters: [{name: c, cluster: {server: "https://127.0.0.1:6443", certificate-authority: rsa.crt}}]
        contexts: [{name: a, context: {cluster: c, user: u}}]
        users: [{name: u, user: {client-certificate: ec.crt, client-key: ec.key}}]
        """);
    KubernetesApi api = KubeAccess.resolve(Map.of("KUBECONFIG", config.toString()), dir);
    assertThat(api.server().getPort()).isEqualTo(6443);
    assertThat(api.tls()).isNotNull();
    assertThat(api.token()).isNull();
  }

  @Test
  void aPluginLoginIsRefusedWithAReason() throws Exception {
    Path config = dir.resolve("config");
    Files.writeString(
        config,
        """
        current-context: a
        clusters: [{name: c, cluster: {server: "https://x:6443", insecure-skip-tls-verify: true}}]
        contexts: [{name: a, context: {cluster: c, user: u}}]
        users: [{name: u, user: {exec: {command: aws}}}]
        """);
    assertThatThrownBy(() -> KubeAccess.resolve(Map.of("KUBECONFIG", config.toString()), dir))
        .hasMessageContaining("plugin");
  }

  @Test
  void withoutAnyConfigurationTheErrorSaysWhatWasTried() {
    assertThatThrownBy(() -> KubeAccess.resolve(Map.of(), dir)).hasMessageContaining("KUBECONFIG");
  }
}
