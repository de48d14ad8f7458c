package dev.baton.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.IOException;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Strategic merge patches ({@code application/strategic-merge-patch+json}, what Helm and {@code
 * kubectl apply} send for built-in kinds), for the kinds where such a patch means exactly what a
 * JSON merge patch (RFC 7386) means: CustomResourceDefinitions and the RBAC kinds, none of whose
 * lists has a merge strategy (every list is replaced whole), as long as the patch carries no
 * directive ({@code $patch}, {@code $retainKeys}, {@code $setElementOrder/...}, {@code
 * $deleteFromPrimitiveList/...}) and touches neither of the two metadata lists that do merge
 * (ownerReferences, finalizers). For the kinds a chart upgrade patches besides those (a Deployment,
 * a Service, a ServiceAccount, a ConfigMap, a PodDisruptionBudget), the lists Kubernetes merges by
 * key are merged by key ({@link KeyedMerge}), with {@code $setElementOrder} and {@code $patch:
 * delete}. Any other strategic merge patch is answered 415, so a test never passes on a patch
 * merged the wrong way. The patch is applied here, to the stored object, which is then written back
 * whole: the mock's own merge patch appends lists instead of replacing them.
 */
final class StrategicMergePatches extends Dispatcher {

  static final String STRATEGIC = "application/strategic-merge-patch+json";

  private static final ObjectMapper JSON = Serialization.jsonMapper();
  private static final Pattern OBJECT =
      Pattern.compile(
          "/apis/(apiextensions\\.k8s\\.io|rbac\\.authorization\\.k8s\\.io)/v1/"
              + "(?:namespaces/[^/]+/)?([^/?]+)/[^/?]+(\\?.*)?");

  /** The workload kinds whose keyed lists {@link KeyedMerge} merges. */
  private static final Pattern KEYED =
      Pattern.compile(
          "/(?:api/v1|apis/apps/v1|apis/policy/v1)/namespaces/[^/]+/"
              + "(?:services|serviceaccounts|configmaps|deployments|poddisruptionbudgets)"
              + "/[^/?]+(\\?.*)?");

  /** The resources whose lists all replace under a strategic merge patch, by group. */
  private static final Map<String, Set<String>> ATOMIC_LISTS =
      Map.of(
          "apiextensions.k8s.io", Set.of("customresourcedefinitions"),
          "rbac.authorization.k8s.io",
              Set.of("clusterroles", "roles", "clusterrolebindings", "rolebindings"));

  private final Dispatcher next;

  StrategicMergePatches(Dispatcher next) {
    this.next = next;
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    String type = request.getHeader("Content-Type");
    if (!"PATCH".equals(request.getMethod()) || type == null || !type.startsWith(STRATEGIC)) {
      return next.dispatch(request);
    }
    if (KEYED.matcher(request.getPath()).matches()) {
      return keyed(request);
    }
    Matcher m = OBJECT.matcher(request.getPath());
    if (!m.matches() || !ATOMIC_LISTS.get(m.group(1)).contains(m.group(2))) {
      return StoreRequests.unsupported(
          "strategic merge patch of "
              + request.getPath()
              + " is not implemented by the embedded API (lists merged by key)");
    }
    JsonNode patch;
    try {
      patch = JSON.readTree(request.getBody().getBytes());
    } catch (IOException e) {
      return StoreRequests.unsupported("patch is not JSON: " + e.getMessage());
    }
    String refused = refused(patch);
    if (refused != null) {
      return StoreRequests.unsupported(
          "strategic merge patch with " + refused + " is not implemented");
    }
    String path = request.getPath();
    int q = path.indexOf('?');
    String object = q < 0 ? path : path.substring(0, q);
    return StrictPatches.mergeInto(next, object, patch, StrategicMergePatches::mergePatch);
  }

  private MockResponse keyed(RecordedRequest request) {
    JsonNode patch;
    try {
      patch = JSON.readTree(request.getBody().getBytes());
    } catch (IOException e) {
      return StoreRequests.unsupported("patch is not JSON: " + e.getMessage());
    }
    String refused = patch.isObject() ? KeyedMerge.unsupported(patch) : "a non-object body";
    if (refused == null && patch.path("metadata").has("ownerReferences")) {
      refused = "metadata.ownerReferences";
    }
    if (refused != null) {
      return StoreRequests.unsupported(
          "strategic merge patch with " + refused + " is not implemented");
    }
    String path = request.getPath();
    int q = path.indexOf('?');
    return StrictPatches.mergeInto(
        next, q < 0 ? path : path.substring(0, q), patch, KeyedMerge::merge);
  }

  /** RFC 7386: objects merge key by key, null removes a key, anything else (lists too) replaces. */
  static JsonNode mergePatch(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch.deepCopy();
    }
    ObjectNode result =
        target != null && target.isObject()
            ? (ObjectNode) target.deepCopy()
            : JSON.createObjectNode();
    for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getValue().isNull()) {
        result.remove(e.getKey());
      } else {
        result.set(e.getKey(), mergePatch(result.get(e.getKey()), e.getValue()));
      }
    }
    return result;
  }

  @Override
  public void shutdown() {
    next.shutdown();
  }

  /** What in the patch a merge patch would read differently, or null. */
  private static String refused(JsonNode patch) {
    if (!patch.isObject()) {
      return "a non-object body";
    }
    JsonNode metadata = patch.path("metadata");
    for (String merging : new String[] {"ownerReferences", "finalizers"}) {
      if (metadata.has(merging)) {
        return "metadata." + merging;
      }
    }
    return directive(patch);
  }

  private static String directive(JsonNode node) {
    if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        if (e.getKey().startsWith("$")) {
          return "directive " + e.getKey();
        }
        String inner = directive(e.getValue());
        if (inner != null) {
          return inner;
        }
      }
    } else if (node.isArray()) {
      for (JsonNode item : node) {
        String inner = directive(item);
        if (inner != null) {
          return inner;
        }
      }
    }
    return null;
  }
}
