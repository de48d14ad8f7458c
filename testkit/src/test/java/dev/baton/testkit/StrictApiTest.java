package dev.baton.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.net.http.WebSocketHandshakeException;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The embedded API refuses what a real API server refused us (shared REAL-SERVER facts, in
 * docs/design.md "Testing"): a WebSocket watch without an Origin header, a JSON patch that adds
 * under a map the object lacks; it serves watches over plain HTTP as a chunked stream, removes a
 * key a merge patch sets to null, and resolves a Service's named port as Kubernetes 1.32 does.
 */
class StrictApiTest {

  private final EmbeddedKubernetes kubernetes = EmbeddedKubernetes.start();
  private final KubernetesClient client = kubernetes.client();
  private final HttpClient http =
      HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();

  @AfterEach
  void stop() {
    kubernetes.close();
  }

  private Pod createPod(String name) {
    return client
        .resource(
            new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("shop")
                .addToLabels("app", "x")
                .endMetadata()
                .build())
        .create();
  }

  private URI uri(String scheme, String pathAndQuery) {
    URI api = URI.create(kubernetes.url());
    return URI.create(scheme + "://" + api.getRawAuthority() + pathAndQuery);
  }

  @Test
  void aWebSocketWatchWithoutOriginIsRefusedAndOneWithOriginIsServed() throws Exception {
    createPod("p");
    String watch = "/api/v1/namespaces/shop/pods?watch=true";
    CompletableFuture<String> first = new CompletableFuture<>();
    WebSocket.Listener listener =
        new WebSocket.Listener() {
          @Override
          public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            first.complete(data.toString());
            return null;
          }
        };
    assertThatThrownBy(
            () ->
                http.newWebSocketBuilder()
                    .buildAsync(uri("ws", watch), listener)
                    .get(10, TimeUnit.SECONDS))
        .isInstanceOf(ExecutionException.class)
        .cause()
        .isInstanceOfSatisfying(
            WebSocketHandshakeException.class,
            e -> assertThat(e.getResponse().statusCode()).isEqualTo(403));

    WebSocket ws =
        http.newWebSocketBuilder()
            .header("Origin", "http://localhost")
            .buildAsync(uri("ws", watch), listener)
            .get(10, TimeUnit.SECONDS);
    assertThat(first.get(10, TimeUnit.SECONDS)).contains("\"ADDED\"").contains("\"p\"");
    ws.abort();
  }

  @Test
  void aWatchOverPlainHttpIsAStreamOfEventLines() throws Exception {
    createPod("p");
    HttpResponse<Stream<String>> response =
        http.send(
            HttpRequest.newBuilder(
                    uri(
                        "http",
                        "/api/v1/namespaces/shop/pods?fieldSelector=metadata.name%3Dp&watch=true"))
                .build(),
            HttpResponse.BodyHandlers.ofLines());
    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
    Iterator<String> lines = response.body().iterator();
    assertThat(lines.next()).contains("\"type\":\"ADDED\"").contains("\"name\":\"p\"");
    client
        .pods()
        .inNamespace("shop")
        .withName("p")
        .edit(
            p -> {
              p.getMetadata().getLabels().put("role", "leader");
              return p;
            });
    assertThat(lines.next()).contains("\"type\":\"MODIFIED\"").contains("\"role\":\"leader\"");
    client.pods().inNamespace("shop").withName("p").delete();
    assertThat(lines.next()).contains("\"type\":\"DELETED\"");
    response.body().close();
  }

  @Test
  void aJsonPatchThatAddsUnderAMissingMapIsRefusedWith422() throws Exception {
    Pod pod = createPod("p");
    assertThat(pod.getMetadata().getAnnotations())
        .as("Fabric8 reads a missing map as empty")
        .isEmpty();
    HttpResponse<String> refused =
        patch(
            "application/json-patch+json",
            "[{\"op\":\"add\",\"path\":\"/metadata/annotations/baton.dev~1term\",\"value\":\"3\"}]");
    assertThat(refused.statusCode()).isEqualTo(422);
    assertThat(refused.body()).contains("missing path");
    assertThat(client.pods().inNamespace("shop").withName("p").get().getMetadata().getAnnotations())
        .isEmpty();
    assertThat(
            patch(
                    "application/json-patch+json",
                    "[{\"op\":\"remove\",\"path\":\"/metadata/labels/absent\"}]")
                .statusCode())
        .isEqualTo(422);
    assertThat(
            patch(
                    "application/json-patch+json",
                    "[{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":{}},"
                        + "{\"op\":\"add\",\"path\":\"/metadata/annotations/a\",\"value\":\"1\"}]")
                .statusCode())
        .as("the map added first")
        .isEqualTo(202);
  }

  @Test
  void aMergePatchRemovesANullKeyAndHonoursItsResourceVersion() throws Exception {
    Pod pod = createPod("p");
    String version = pod.getMetadata().getResourceVersion();
    HttpResponse<String> done =
        patch(
            "application/merge-patch+json",
            "{\"metadata\":{\"resourceVersion\":\""
                + version
                + "\",\"labels\":{\"app\":null,\"role\":\"leader\"},\"annotations\":{\"t\":\"1\"}}}");
    assertThat(done.statusCode()).isEqualTo(200);
    Pod after = client.pods().inNamespace("shop").withName("p").get();
    assertThat(after.getMetadata().getLabels()).isEqualTo(Map.of("role", "leader"));
    assertThat(after.getMetadata().getAnnotations()).isEqualTo(Map.of("t", "1"));
    assertThat(
            patch(
                    "application/merge-patch+json",
                    "{\"metadata\":{\"resourceVersion\":\""
                        + version
                        + "\",\"labels\":{\"x\":\"y\"}}}")
                .statusCode())
        .as("written against a version the pod has moved on from")
        .isEqualTo(409);
  }

  @Test
  void aNamedTargetPortResolvesOnMainContainersOnly() {
    Service svc =
        new ServiceBuilder()
            .withNewSpec()
            .addNewPort()
            .withName("http")
            .withPort(80)
            .withTargetPort(new IntOrString("gate"))
            .endPort()
            .endSpec()
            .build();
    Pod sidecarOnly =
        new PodBuilder()
            .withNewSpec()
            .addNewInitContainer()
            .withName("agent")
            .withRestartPolicy("Always")
            .addNewPort()
            .withName("gate")
            .withContainerPort(8080)
            .endPort()
            .endInitContainer()
            .addNewContainer()
            .withName("app")
            .endContainer()
            .endSpec()
            .build();
    assertThat(EndpointsController.ports(svc, sidecarOnly)).isEmpty();
    Pod main =
        new PodBuilder(sidecarOnly)
            .editSpec()
            .editFirstContainer()
            .addNewPort()
            .withName("gate")
            .withContainerPort(8080)
            .endPort()
            .endContainer()
            .endSpec()
            .build();
    assertThat(EndpointsController.ports(svc, main))
        .singleElement()
        .satisfies(
            p -> {
              assertThat(p.getName()).isEqualTo("http");
              assertThat(p.getPort()).isEqualTo(8080);
            });
  }

  private HttpResponse<String> patch(String type, String body) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri("http", "/api/v1/namespaces/shop/pods/p"))
            .method("PATCH", HttpRequest.BodyPublishers.ofString(body))
            .header("Content-Type", type)
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
