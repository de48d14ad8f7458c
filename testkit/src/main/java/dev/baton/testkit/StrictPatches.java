package dev.baton.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.zjsonpatch.JsonPatch;
import java.io.IOException;

/**
 * JSON patches and JSON merge patches applied as kube-apiserver applies them, where Fabric8's mock
 * is lenient (docs/design.md, "Testing"):
 *
 * <ul>
 *   <li>A JSON patch (RFC 6902) whose {@code add} names a parent the object lacks (say {@code
 *       /metadata/annotations/k} on a pod without annotations), or whose {@code remove} or {@code
 *       replace} names a path that is not there, or whose {@code test} fails, is refused with 422
 *       and changes nothing. The mock creates missing parents and ignores the rest.
 *   <li>A JSON merge patch (RFC 7386) removes a key given {@code null}; the mock stores the null.
 *       With {@code metadata.resourceVersion} in the patch it is a precondition (409 when the
 *       object moved on), as on a real server. Patches to a {@code /status} subresource are left to
 *       the mock.
 * </ul>
 */
final class StrictPatches extends Dispatcher {

  static final String JSON_PATCH = "application/json-patch+json";
  static final String MERGE_PATCH = "application/merge-patch+json";

  private static final ObjectMapper JSON = Serialization.jsonMapper();

  private final Dispatcher next;

  StrictPatches(Dispatcher next) {
    this.next = next;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    String type = request.getHeader("Content-Type");
    if (!"PATCH".equals(request.getMethod()) || type == null) {
      return next.dispatch(request);
    }
    String path = request.getPath();
    int q = path.indexOf('?');
    String object = q < 0 ? path : path.substring(0, q);
    if (type.startsWith(JSON_PATCH)) {
      return jsonPatch(request, object);
    }
    if (type.startsWith(MERGE_PATCH) && !object.endsWith("/status")) {
      try {
        return mergeInto(
            next,
            object,
            JSON.readTree(request.getBody().getBytes()),
            StrategicMergePatches::mergePatch);
      } catch (IOException e) {
        return status(400, "BadRequest", "the patch is not JSON: " + e.getMessage());
      }
    }
    return next.dispatch(request);
  }

  /** Checks every operation against the object as the ones before it leave it, then applies. */
  private MockResponse jsonPatch(RecordedRequest request, String object) {
    String stored = object.endsWith("/status") ? object.substring(0, object.length() - 7) : object;
    MockResponse current = next.dispatch(StoreRequests.json(HttpMethod.GET, stored, null));
    if (current.code() != 200) {
      return next.dispatch(request);
    }
    try {
      JsonNode doc = JSON.readTree(current.getBody().getBytes());
      JsonNode ops = JSON.readTree(request.getBody().getBytes());
      if (!ops.isArray()) {
        return status(400, "BadRequest", "a JSON patch is an array of operations");
      }
      for (JsonNode op : ops) {
        String refused = refused(doc, op);
        if (refused != null) {
          return status(422, "Invalid", refused);
        }
        ArrayNode one = JSON.createArrayNode().add(op);
        doc = JsonPatch.apply(one, doc);
      }
    } catch (IOException | RuntimeException e) {
      return status(422, "Invalid", "the patch does not apply: " + e.getMessage());
    }
    return next.dispatch(request);
  }

  /** Why the server would refuse {@code op} on {@code doc}, in its words; null when it applies. */
  static String refused(JsonNode doc, JsonNode op) {
    String kind = op.path("op").asText();
    String path = op.path("path").asText();
    switch (kind) {
      case "add" -> {
        if (!path.isEmpty() && find(doc, parent(path)) == null) {
          return "add operation does not apply: doc is missing path: \"" + path + "\"";
        }
      }
      case "remove", "replace" -> {
        if (find(doc, path) == null) {
          return kind + " operation does not apply: doc is missing path: \"" + path + "\"";
        }
      }
      case "test" -> {
        JsonNode at = find(doc, path);
        if (at == null || !at.equals(op.path("value"))) {
          return "testing value " + path + " failed: test failed";
        }
      }
      case "move", "copy" -> {
        if (find(doc, op.path("from").asText()) == null || find(doc, parent(path)) == null) {
          return kind + " operation does not apply: doc is missing path: \"" + path + "\"";
        }
      }
      default -> {
        return "unexpected operation " + kind;
      }
    }
    return null;
  }

  private static String parent(String pointer) {
    int slash = pointer.lastIndexOf('/');
    return slash <= 0 ? "" : pointer.substring(0, slash);
  }

  /** RFC 6901: the node at {@code pointer}, or null. */
  private static JsonNode find(JsonNode doc, String pointer) {
    if (pointer.isEmpty()) {
      return doc;
    }
    JsonNode at = doc;
    for (String raw : pointer.substring(1).split("/", -1)) {
      String token = raw.replace("~1", "/").replace("~0", "~");
      if (at == null || at.isNull()) {
        return null;
      }
      if (at.isArray()) {
        try {
          at = at.get(Integer.parseInt(token));
        } catch (NumberFormatException e) {
          return null;
        }
      } else {
        at = at.get(token);
      }
    }
    return at;
  }

  /**
   * Reads the stored object, merges the patch (RFC 7386) and writes it back with the version read;
   * a write in between is a conflict, and the patch is applied again to the newer object, unless it
   * named the version it was computed from.
   */
  static MockResponse mergeInto(
      Dispatcher store,
      String object,
      JsonNode patch,
      java.util.function.BinaryOperator<JsonNode> merge) {
    JsonNode version = patch.path("metadata").path("resourceVersion");
    for (int attempt = 0; attempt < 10; attempt++) {
      MockResponse current = store.dispatch(StoreRequests.json(HttpMethod.GET, object, null));
      if (current.code() != 200) {
        return current;
      }
      JsonNode merged;
      try {
        JsonNode stored = JSON.readTree(current.getBody().getBytes());
        if (version.isTextual()
            && !version.asText().equals(stored.path("metadata").path("resourceVersion").asText())) {
          return status(
              409,
              "Conflict",
              "Operation cannot be fulfilled: the object has been modified; please apply your"
                  + " changes to the latest version and try again");
        }
        merged = merge.apply(stored, patch);
        ((ObjectNode) merged.path("metadata"))
            .put("resourceVersion", stored.path("metadata").path("resourceVersion").asText());
      } catch (IOException e) {
        throw new IllegalStateException("stored object unreadable: " + object, e);
      }
      MockResponse written =
          store.dispatch(StoreRequests.json(HttpMethod.PUT, object, merged.toString()));
      if (written.code() != 409 || version.isTextual()) {
        return written;
      }
    }
    return status(409, "Conflict", "conflict after conflict patching " + object);
  }

  private static MockResponse status(int code, String reason, String message) {
    ObjectNode status = JSON.createObjectNode();
    status.put("kind", "Status").put("apiVersion", "v1").put("status", "Failure");
    status.put("message", message).put("reason", reason).put("code", code);
    return new MockResponse()
        .setResponseCode(code)
        .setHeader("Content-Type", "application/json")
        .setBody(status.toString());
  }

  @Override
  public void shutdown() {
    next.shutdown();
  }
}
