package dev.baton.operator.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;

/**
 * Reads of labels and annotations, which Kubernetes leaves null on an object that has none, and the
 * removal of a request annotation once it was carried out.
 */
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

  /**
   * Takes an annotation off a resource as the API server holds it now (read, then written back
   * guarded by its resourceVersion), once what it asked for was done.
   */
  @SuppressWarnings("unchecked")
  public static <T extends HasMetadata> void removeAnnotation(
      KubernetesClient client, T resource, String key) {
    client
        .resources((Class<T>) resource.getClass())
        .inNamespace(resource.getMetadata().getNamespace())
        .withName(resource.getMetadata().getName())
        .edit(
            r -> {
              if (r.getMetadata().getAnnotations() != null) {
                r.getMetadata().getAnnotations().remove(key);
              }
              return r;
            });
  }

  private static String get(Map<String, String> map, String key) {
    return map == null ? null : map.get(key);
  }
}
