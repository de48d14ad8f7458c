package dev.baton.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * Does for the embedded API what the apiextensions server's naming and establishing controllers do
 * in a cluster: after a CustomResourceDefinition is written, its status gets {@code acceptedNames}
 * (its spec's names), the {@code NamesAccepted} and {@code Established} conditions and the storage
 * version in {@code storedVersions}. Clients that wait for a CRD before using it (Helm after
 * installing a chart's {@code crds/}) wait for {@code Established}. The status is written as a
 * second write right after the client's (so with its own resourceVersion), as the controllers do it
 * shortly after; names are never refused here (no clash check).
 */
final class CrdEstablisher extends Dispatcher {

  private static final ObjectMapper JSON = Serialization.jsonMapper();
  private static final String CRDS = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions";

  private final Dispatcher next;

  CrdEstablisher(Dispatcher next) {
    this.next = next;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    MockResponse response = next.dispatch(request);
    String method = request.getMethod();
    if (method.equals("GET")
        || method.equals("DELETE")
        || !request.getPath().startsWith(CRDS)
        || response.code() / 100 != 2) {
      return response;
    }
    try {
      establish(JSON.readTree(body(response)));
    } catch (IOException e) {
      throw new IllegalStateException("unreadable CRD in a write's answer", e);
    }
    return response;
  }

  @Override
  public void shutdown() {
    next.shutdown();
  }

  private static String body(MockResponse response) {
    Buffer buffer = response.getBody();
    return buffer == null ? "" : new String(buffer.getBytes(), StandardCharsets.UTF_8);
  }

  private void establish(JsonNode written) {
    if (!written.path("kind").asText().equals("CustomResourceDefinition")) {
      return;
    }
    String name = written.path("metadata").path("name").asText();
    // A write that came in between makes the status write a conflict: read again and retry.
    for (int attempt = 0; attempt < 10; attempt++) {
      if (establish(name)) {
        return;
      }
    }
    throw new IllegalStateException("CRD " + name + " not established: conflict after conflict");
  }

  /** False on a conflict. */
  private boolean establish(String name) {
    MockResponse current =
        next.dispatch(StoreRequests.json(HttpMethod.GET, CRDS + "/" + name, null));
    if (current.code() != 200) {
      return true;
    }
    ObjectNode crd;
    try {
      crd = (ObjectNode) JSON.readTree(body(current));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    ObjectNode status = crd.with("status");
    JsonNode names = crd.path("spec").path("names");
    Set<String> stored = new LinkedHashSet<>();
    status.path("storedVersions").forEach(v -> stored.add(v.asText()));
    for (JsonNode version : crd.path("spec").path("versions")) {
      if (version.path("storage").asBoolean()) {
        stored.add(version.path("name").asText());
      }
    }
    if (names.equals(status.path("acceptedNames"))
        && established(status)
        && stored.size() == status.path("storedVersions").size()) {
      return true;
    }
    status.set("acceptedNames", names.deepCopy());
    ArrayNode storedVersions = status.putArray("storedVersions");
    stored.forEach(storedVersions::add);
    String now = Instant.now().truncatedTo(ChronoUnit.SECONDS).toString();
    ArrayNode conditions = status.putArray("conditions");
    conditions
        .addObject()
        .put("type", "NamesAccepted")
        .put("status", "True")
        .put("lastTransitionTime", now)
        .put("reason", "NoConflicts")
        .put("message", "no conflicts found");
    conditions
        .addObject()
        .put("type", "Established")
        .put("status", "True")
        .put("lastTransitionTime", now)
        .put("reason", "InitialNamesAccepted")
        .put("message", "the initial names have been accepted");
    MockResponse put =
        next.dispatch(StoreRequests.json(HttpMethod.PUT, CRDS + "/" + name, crd.toString()));
    if (put.code() == 409) {
      return false;
    }
    if (put.code() / 100 != 2) {
      throw new IllegalStateException("CRD " + name + " not established: " + body(put));
    }
    return true;
  }

  private static boolean established(JsonNode status) {
    for (JsonNode c : status.path("conditions")) {
      if (c.path("type").asText().equals("Established")
          && c.path("status").asText().equals("True")) {
        return true;
      }
    }
    return false;
  }
}
