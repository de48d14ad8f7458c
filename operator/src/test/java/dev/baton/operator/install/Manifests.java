package dev.baton.operator.install;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.baton.api.v1alpha1.LeaderGroup;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Reads multi-document Kubernetes YAML into typed objects, and refuses what would otherwise pass
 * silently: a kind no model class knows, and a field the model does not have (a typo).
 */
final class Manifests {

  private static final KubernetesSerialization SERIALIZATION = newSerialization();
  private static final ObjectMapper YAML = new YAMLMapper();

  private Manifests() {}

  private static KubernetesSerialization newSerialization() {
    KubernetesSerialization serialization = new KubernetesSerialization(new ObjectMapper(), true);
    serialization.registerKubernetesResource(LeaderGroup.class);
    serialization.registerKubernetesResource(dev.baton.api.v1alpha1.RedisLock.class);
    return serialization;
  }

  /**
   * Parses every document strictly; only the kinds named in {@code untypedKinds} may be untyped.
   */
  static List<HasMetadata> parse(String yaml, String source, Set<String> untypedKinds) {
    List<HasMetadata> objects = new ArrayList<>();
    List<String> problems = new ArrayList<>();
    int index = 0;
    for (JsonNode document : documents(yaml, source)) {
      index++;
      String where =
          source
              + " document "
              + index
              + " ("
              + document.path("kind").asText("?")
              + " "
              + document.path("metadata").path("name").asText("?")
              + ")";
      Object parsed;
      try {
        parsed = SERIALIZATION.unmarshal(document.toString());
      } catch (RuntimeException e) {
        problems.add(where + ": " + causes(e));
        continue;
      }
      if (!(parsed instanceof HasMetadata object)) {
        problems.add(where + ": not a Kubernetes object but " + parsed.getClass().getSimpleName());
        continue;
      }
      if (object instanceof GenericKubernetesResource generic) {
        if (!untypedKinds.contains(generic.getKind())) {
          problems.add(
              where
                  + ": unknown kind "
                  + generic.getApiVersion()
                  + "/"
                  + generic.getKind()
                  + " (no model class has this apiVersion and kind)");
          continue;
        }
      } else {
        List<String> unknown = new ArrayList<>();
        collectUnknownFields(object, "", unknown);
        if (!unknown.isEmpty()) {
          problems.add(where + ": unknown fields " + unknown);
        }
      }
      objects.add(object);
    }
    if (!problems.isEmpty()) {
      throw new InvalidManifestException(String.join("\n", problems));
    }
    return objects;
  }

  /** Parses strictly, allowing no untyped kind. */
  static List<HasMetadata> parse(String yaml, String source) {
    return parse(yaml, source, Set.of());
  }

  /** The non-empty documents of a YAML stream, as trees. */
  static List<JsonNode> documents(String yaml, String source) {
    List<JsonNode> documents = new ArrayList<>();
    try (MappingIterator<JsonNode> it = YAML.readerFor(JsonNode.class).readValues(yaml)) {
      while (it.hasNext()) {
        JsonNode node = it.next();
        if (node != null && !node.isNull() && !node.isMissingNode() && !node.isEmpty()) {
          documents.add(node);
        }
      }
    } catch (IOException e) {
      throw new InvalidManifestException(source + " is not valid YAML: " + e.getMessage());
    }
    return documents;
  }

  static <T extends HasMetadata> List<T> ofKind(List<HasMetadata> objects, Class<T> type) {
    return objects.stream().filter(type::isInstance).map(type::cast).collect(Collectors.toList());
  }

  static <T extends HasMetadata> T single(List<HasMetadata> objects, Class<T> type) {
    List<T> found = ofKind(objects, type);
    if (found.size() != 1) {
      throw new AssertionError(
          "expected one " + type.getSimpleName() + " but found " + found.size() + ": " + objects);
    }
    return found.get(0);
  }

  static <T extends HasMetadata> T named(List<HasMetadata> objects, Class<T> type, String name) {
    return ofKind(objects, type).stream()
        .filter(o -> name.equals(o.getMetadata().getName()))
        .findFirst()
        .orElseThrow(() -> new AssertionError("no " + type.getSimpleName() + " named " + name));
  }

  /** Whether a standard label selector selects these labels (an empty selector selects all). */
  static boolean selects(LabelSelector selector, Map<String, String> labels) {
    Map<String, String> have = labels == null ? Map.of() : labels;
    if (selector.getMatchLabels() != null) {
      for (Map.Entry<String, String> e : selector.getMatchLabels().entrySet()) {
        if (!e.getValue().equals(have.get(e.getKey()))) {
          return false;
        }
      }
    }
    if (selector.getMatchExpressions() != null) {
      for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
        String value = have.get(r.getKey());
        List<String> values = r.getValues() == null ? List.of() : r.getValues();
        boolean ok =
            switch (r.getOperator()) {
              case "In" -> value != null && values.contains(value);
              case "NotIn" -> value == null || !values.contains(value);
              case "Exists" -> value != null;
              case "DoesNotExist" -> value == null;
              default -> throw new AssertionError("unknown selector operator " + r.getOperator());
            };
        if (!ok) {
          return false;
        }
      }
    }
    return true;
  }

  /** Whether a Service-style selector (label equality only) selects these labels. */
  static boolean selects(Map<String, String> selector, Map<String, String> labels) {
    Map<String, String> have = labels == null ? Map.of() : labels;
    return selector.entrySet().stream().allMatch(e -> e.getValue().equals(have.get(e.getKey())));
  }

  /**
   * Fabric8's model classes keep fields they do not know in {@code additionalProperties} instead of
   * failing; any entry there is a field that Kubernetes would reject or ignore.
   */
  private static void collectUnknownFields(Object value, String path, List<String> unknown) {
    if (value == null) {
      return;
    }
    if (value instanceof Map<?, ?> map) {
      map.forEach((k, v) -> collectUnknownFields(v, join(path, k.toString()), unknown));
      return;
    }
    if (value instanceof Collection<?> items) {
      int i = 0;
      for (Object item : items) {
        collectUnknownFields(item, path + "[" + i++ + "]", unknown);
      }
      return;
    }
    Class<?> type = value.getClass();
    String pkg = type.getPackageName();
    if (!pkg.startsWith("io.fabric8.kubernetes.api.model") && !pkg.startsWith("dev.baton")) {
      return;
    }
    for (Method getter : type.getMethods()) {
      if (getter.getParameterCount() != 0
          || Modifier.isStatic(getter.getModifiers())
          || getter.getDeclaringClass() == Object.class
          || !getter.getName().startsWith("get")
          || getter.getName().equals("getAdditionalPropertiesNode")) {
        continue;
      }
      Object child;
      try {
        child = getter.invoke(value);
      } catch (IllegalAccessException | InvocationTargetException e) {
        continue;
      }
      if (getter.getName().equals("getAdditionalProperties")) {
        if (child instanceof Map<?, ?> extra) {
          extra.keySet().forEach(k -> unknown.add(join(path, k.toString())));
        }
        continue;
      }
      String property =
          Character.toLowerCase(getter.getName().charAt(3)) + getter.getName().substring(4);
      collectUnknownFields(child, join(path, property), unknown);
    }
  }

  /** Fabric8 wraps Jackson's precise message ("Unrecognized field ...") in a generic one. */
  private static String causes(Throwable e) {
    List<String> messages = new ArrayList<>();
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      messages.add(t.getMessage());
    }
    return String.join(" <- ", messages);
  }

  private static String join(String path, String name) {
    return path.isEmpty() ? name : path + "." + name;
  }

  /** A manifest that names an unknown kind or field, or is not YAML. */
  static final class InvalidManifestException extends RuntimeException {
    InvalidManifestException(String message) {
      super(message);
    }
  }
}
