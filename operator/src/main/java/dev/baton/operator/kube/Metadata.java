package dev.baton.operator.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;

/**
 * Reads of labels and annotations, which Kubernetes leaves null on an object that has none, the
 * removal of a request annotation once it was carried out, and the owner reference of what the
 * operator writes for a resource.
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

  /**
   * The ownerReference that makes an object the operator writes for {@code owner} go with it. No
   * blockOwnerDeletion: setting it takes the right to update the owner's finalizers, which the
   * operator does not need otherwise.
   */
  public static OwnerReference controllerReference(HasMetadata owner) {
    return new OwnerReferenceBuilder()
        .withApiVersion(owner.getApiVersion())
        .withKind(owner.getKind())
        .withName(owner.getMetadata().getName())
        .withUid(owner.getMetadata().getUid())
        .withController(true)
        .build();
  }

  private static String get(Map<String, String> map, String key) {
    return map == null ? null : map.get(key);
  }
}
