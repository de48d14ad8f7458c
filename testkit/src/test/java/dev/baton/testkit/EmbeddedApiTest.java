package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What the embedded API answers besides objects, as a real API server does, for clients such as
 * Helm: the version, discovery of built-in and custom resources, established CRDs, lists named by
 * their kind, protobuf Secrets, and strategic merge patches where they mean a merge patch.
 */
class EmbeddedApiTest {

  private final EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start();
  private final KubernetesClient client = kubernetes.client();
  private final HttpClient http = HttpClient.newHttpClient();

  @AfterEach
  void stop() {
    kubernetes.close();
  }

  @Test
  void reportsItsVersion() {
    assertThat(client.getKubernetesVersion().getGitVersion()).isEqualTo("v1.30.0");
    assertThat(client.getKubernetesVersion().getMinor()).isEqualTo("30");
  }

  @Test
  void discoversBuiltInResourcesWithTheirScopeVerbsAndShortNames() {
    APIResource deployments = resource("apps/v1", "deployments");
    assertThat(deployments.getKind()).isEqualTo("Deployment");
    assertThat(deployments.getNamespaced()).isTrue();
    assertThat(deployments.getShortNames()).containsExactly("deploy");
    assertThat(deployments.getCategories()).containsExactly("all");
    assertThat(deployments.getVerbs())
        .containsExactly(
            "create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");

    assertThat(resource("rbac.authorization.k8s.io/v1", "clusterroles").getNamespaced()).isFalse();
    assertThat(resource("v1", "namespaces").getVerbs()).doesNotContain("deletecollection");
    assertThat(resource("v1", "pods/status").getVerbs()).containsExactly("get", "patch", "update");
    assertThat(client.getApiGroups().getGroups())
        .extracting(APIGroup::getName)
        .contains(
            "apps",
            "rbac.authorization.k8s.io",
            "coordination.k8s.io",
            "discovery.k8s.io",
            "apiextensions.k8s.io",
            "baton.dev")
        .doesNotContain("monitoring.coreos.com");
  }

  @Test
  void discoversCustomResourcesFromTheirEstablishedCrds() {
    APIResource groups = resource("baton.dev/v1alpha1", "leadergroups");

    assertThat(groups.getKind()).isEqualTo("LeaderGroup");
    assertThat(groups.getSingularName()).isEqualTo("leadergroup");
    assertThat(groups.getNamespaced()).isTrue();
    assertThat(groups.getShortNames()).containsExactly("lg");
    assertThat(groups.getCategories()).containsExactly("baton");
    assertThat(groups.getVerbs())
        .containsExactly(
            "delete", "deletecollection", "get", "list", "patch", "create", "update", "watch");
    assertThat(resource("baton.dev/v1alpha1", "leadergroups/status").getVerbs())
        .containsExactly("get", "patch", "update");

    CustomResourceDefinition crd =
        client
            .apiextensions()
            .v1()
            .customResourceDefinitions()
            .withName("leadergroups.baton.dev")
            .get();
    assertThat(crd.getStatus().getConditions())
        .filteredOn(c -> c.getType().equals("Established"))
        .singleElement()
        .satisfies(c -> assertThat(c.getStatus()).isEqualTo("True"));
    assertThat(crd.getStatus().getAcceptedNames()).isEqualTo(crd.getSpec().getNames());
    assertThat(crd.getStatus().getStoredVersions()).containsExactly("v1alpha1");
  }

  @Test
  void aGroupWithoutCrdIsNotFound() throws Exception {
    assertThat(get("/apis/monitoring.coreos.com/v1").statusCode()).isEqualTo(404);
  }

  @Test
  void namesAListByItsKind() throws Exception {
    HttpResponse<String> secrets = get("/api/v1/namespaces/shop/secrets");
    HttpResponse<String> groups = get("/apis/baton.dev/v1alpha1/leadergroups");

    assertThat(secrets.body()).contains("\"kind\":\"SecretList\"");
    assertThat(groups.body()).contains("\"kind\":\"LeaderGroupList\"");
  }

  @Test
  void takesASecretInProtobuf() throws Exception {
    byte[] secret = protobufSecret("sh.helm.release.v1.r.v1", "owner", "helm", "release", "abc");

    HttpResponse<String> created =
        http.send(
            HttpRequest.newBuilder(uri("/api/v1/namespaces/shop/secrets"))
                .header("Content-Type", "application/vnd.kubernetes.protobuf")
                .header("Accept", "application/vnd.kubernetes.protobuf,application/json")
                .POST(HttpRequest.BodyPublishers.ofByteArray(secret))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(created.statusCode()).as(created.body()).isBetween(200, 201);
    assertThat(created.headers().firstValue("Content-Type")).hasValue("application/json");
    var stored = client.secrets().inNamespace("shop").withName("sh.helm.release.v1.r.v1").get();
    assertThat(stored.getMetadata().getLabels()).containsEntry("owner", "helm");
    assertThat(stored.getType()).isEqualTo("helm.sh/release.v1");
    assertThat(stored.getData())
        .containsEntry(
            "release", Base64.getEncoder().encodeToString("abc".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aProtobufBodyOtherThanASecretIsRefused() throws Exception {
    HttpResponse<String> refused =
        http.send(
            HttpRequest.newBuilder(uri("/api/v1/namespaces/shop/configmaps"))
                .header("Content-Type", "application/vnd.kubernetes.protobuf")
                .POST(HttpRequest.BodyPublishers.ofByteArray(new byte[] {'k', '8', 's', 0}))
                .build(),
            HttpResponse.BodyHandlers.ofString());

    assertThat(refused.statusCode()).isEqualTo(415);
  }

  @Test
  void aStrategicMergePatchOfAnRbacKindReplacesItsLists() throws Exception {
    client
        .rbac()
        .clusterRoles()
        .resource(
            new ClusterRoleBuilder()
                .withNewMetadata()
                .withName("reader")
                .addToLabels("a", "1")
                .endMetadata()
                .addNewRule()
                .withApiGroups("")
                .withResources("pods")
                .withVerbs("get")
                .endRule()
                .addNewRule()
                .withApiGroups("")
                .withResources("nodes")
                .withVerbs("list")
                .endRule()
                .build())
        .create();

    HttpResponse<String> patched =
        patch(
            "/apis/rbac.authorization.k8s.io/v1/clusterroles/reader",
            "{\"metadata\":{\"labels\":{\"a\":null,\"b\":\"2\"}},"
                + "\"rules\":[{\"apiGroups\":[\"\"],\"resources\":[\"secrets\"],\"verbs\":[\"get\"]}]}");

    assertThat(patched.statusCode()).as(patched.body()).isEqualTo(200);
    var role = client.rbac().clusterRoles().withName("reader").get();
    assertThat(role.getRules())
        .extracting(PolicyRule::getResources)
        .containsExactly(List.of("secrets"));
    assertThat(role.getMetadata().getLabels()).containsOnlyKeys("b");
  }

  @Test
  void aStrategicMergePatchWithADirectiveNotImplementedIsRefused() throws Exception {
    assertThat(
            patch(
                    "/apis/apps/v1/namespaces/shop/deployments/web",
                    "{\"spec\":{\"strategy\":{\"$retainKeys\":[\"type\"]}}}")
                .statusCode())
        .isEqualTo(415);
    assertThat(
            patch(
                    "/apis/rbac.authorization.k8s.io/v1/clusterroles/reader",
                    "{\"$setElementOrder/rules\":[]}")
                .statusCode())
        .isEqualTo(415);
  }

  private APIResource resource(String groupVersion, String name) {
    return client.getApiResources(groupVersion).getResources().stream()
        .filter(r -> r.getName().equals(name))
        .findFirst()
        .orElseThrow(() -> new AssertionError(name + " not discovered in " + groupVersion));
  }

  private URI uri(String path) {
    return URI.create(kubernetes.url().replaceAll("/$", "") + path);
  }

  private HttpResponse<String> get(String path) throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(uri(path)).header("Accept", "application/json").build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private HttpResponse<String> patch(String path, String body)
      throws IOException, InterruptedException {
    return http.send(
        HttpRequest.newBuilder(uri(path))
            .header("Content-Type", "application/strategic-merge-patch+json")
            .method("PATCH", HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A v1 Secret in Kubernetes' protobuf envelope, as client-go writes it. */
  private static byte[] protobufSecret(
      String name, String label, String value, String dataKey, String data) throws IOException {
    byte[] metadata = concat(field(1, utf8(name)), field(11, entry(label, utf8(value))));
    byte[] secret =
        concat(
            field(1, metadata),
            field(2, entry(dataKey, utf8(data))),
            field(3, utf8("helm.sh/release.v1")));
    byte[] typeMeta = concat(field(1, utf8("v1")), field(2, utf8("Secret")));
    return concat(new byte[] {'k', '8', 's', 0}, field(1, typeMeta), field(2, secret));
  }

  private static byte[] entry(String key, byte[] value) throws IOException {
    return concat(field(1, utf8(key)), field(2, value));
  }

  /** A length-delimited field (wire type 2); every length here is below 128, one varint byte. */
  private static byte[] field(int number, byte[] value) throws IOException {
    assertThat(value.length).isLessThan(128);
    return concat(new byte[] {(byte) (number << 3 | 2), (byte) value.length}, value);
  }

  private static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  private static byte[] concat(byte[]... parts) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.write(p);
    }
    return out.toByteArray();
  }
}
