package dev.baton.operator.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Map;

/** Reads of labels and annotations, which Kubernetes leaves null on an object that has none. */
public final class Metadata {

  private Metadata() {}

  public static String label(HasMetadata object, String key) {
    return get(object.getMetadata().getLabels(), key);
  }

  public static String annotation(HasMetadata object, String key) {
    return get(object.getMetadata().getAnnotations(), key);
  }

  /** An annotation a user sets to ask for something: trimmed, and null when absent or blank. */
  public static String request(HasMetadata object, String key) {
    String v = annotation(object, key);
    return v == null || v.isBlank() ? null : v.trim();
  }

  private static String get(Map<String, String> map, String key) {
    return map == null ? null : map.get(key);
  }
}
