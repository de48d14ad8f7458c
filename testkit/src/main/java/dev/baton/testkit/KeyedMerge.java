package dev.baton.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * A strategic merge patch as the API server applies it to the workload kinds Helm upgrades (a
 * Deployment, a Service, a ServiceAccount): objects merge key by key, null removes a key, and the
 * lists Kubernetes marks {@code patchStrategy: merge} merge element by element on their merge key
 * (containers, init containers, env, volumes and imagePullSecrets by name, volume mounts by
 * mountPath, a container's ports by containerPort, a Service's by port), an element carrying {@code
 * $patch: delete} is removed, and {@code $setElementOrder/<list>} orders the result. Every other
 * list is replaced whole. Other directives are refused by the caller.
 */
final class KeyedMerge {

  private static final ObjectMapper JSON = Serialization.jsonMapper();

  /** Lists that merge, by field name; a container's and a Service's ports differ in their key. */
  private static final Map<String, String> MERGE_KEYS =
      Map.of(
          "containers", "name",
          "initContainers", "name",
          "ephemeralContainers", "name",
          "env", "name",
          "volumes", "name",
          "imagePullSecrets", "name",
          "volumeMounts", "mountPath",
          "ports", "containerPort|port");

  private KeyedMerge() {}

  /** The directive this merge does not implement, or null. */
  static String unsupported(JsonNode node) {
    if (node.isObject()) {
      for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
        Map.Entry<String, JsonNode> e = it.next();
        String k = e.getKey();
        if (k.startsWith("$")
            && !k.startsWith("$setElementOrder/")
            && !(k.equals("$patch") && e.getValue().asText().equals("delete"))) {
          return "directive " + k;
        }
        String inner = unsupported(e.getValue());
        if (inner != null) {
          return inner;
        }
      }
    } else if (node.isArray()) {
      for (JsonNode item : node) {
        String inner = unsupported(item);
        if (inner != null) {
          return inner;
        }
      }
    }
    return null;
  }

  static JsonNode merge(JsonNode target, JsonNode patch) {
    if (!patch.isObject()) {
      return patch.deepCopy();
    }
    ObjectNode result =
        target != null && target.isObject()
            ? (ObjectNode) target.deepCopy()
            : JSON.createObjectNode();
    for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      String key = e.getKey();
      JsonNode value = e.getValue();
      if (key.startsWith("$")) {
        continue;
      }
      if (value.isNull()) {
        result.remove(key);
      } else if (value.isArray() && MERGE_KEYS.containsKey(key)) {
        result.set(key, mergeList(result.get(key), (ArrayNode) value, MERGE_KEYS.get(key)));
      } else {
        result.set(key, merge(result.get(key), value));
      }
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      if (e.getKey().startsWith("$setElementOrder/")) {
        String list = e.getKey().substring("$setElementOrder/".length());
        if (result.get(list) instanceof ArrayNode items && MERGE_KEYS.containsKey(list)) {
          result.set(list, ordered(items, (ArrayNode) e.getValue(), MERGE_KEYS.get(list)));
        }
      }
    }
    return result;
  }

  private static ArrayNode mergeList(JsonNode target, ArrayNode patch, String keys) {
    List<JsonNode> items = new ArrayList<>();
    if (target != null && target.isArray()) {
      target.forEach(items::add);
    }
    for (JsonNode element : patch) {
      String key = keyOf(element, keys);
      int at = indexOf(items, key, keys);
      if ("delete".equals(element.path("$patch").asText())) {
        if (at >= 0) {
          items.remove(at);
        }
      } else if (at >= 0) {
        items.set(at, merge(items.get(at), element));
      } else {
        items.add(merge(null, element));
      }
    }
    ArrayNode out = JSON.createArrayNode();
    items.forEach(out::add);
    return out;
  }

  private static ArrayNode ordered(ArrayNode items, ArrayNode order, String keys) {
    List<JsonNode> rest = new ArrayList<>();
    items.forEach(rest::add);
    ArrayNode out = JSON.createArrayNode();
    for (JsonNode wanted : order) {
      int at = indexOf(rest, keyOf(wanted, keys), keys);
      if (at >= 0) {
        out.add(rest.remove(at));
      }
    }
    rest.forEach(out::add);
    return out;
  }

  private static int indexOf(List<JsonNode> items, String key, String keys) {
    for (int i = 0; i < items.size(); i++) {
      if (key.equals(keyOf(items.get(i), keys))) {
        return i;
      }
    }
    return -1;
  }

  /** The element's merge key value: the first of the alternatives it carries. */
  private static String keyOf(JsonNode element, String keys) {
    for (String k : keys.split("\\|")) {
      if (element.has(k)) {
        return k + "=" + element.get(k).asText();
      }
    }
    return "";
  }
}
