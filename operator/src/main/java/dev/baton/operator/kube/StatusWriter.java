package dev.baton.operator.kube;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a resource's status, only when it changed. One JSON Patch op replaces the whole status:
 * it is wholly ours, the patch needs no resourceVersion (a concurrent annotation edit never fails
 * it), and unlike a merge patch it cannot leave stale conditions behind in any server's handling
 * of arrays and nulls.
 */
public final class StatusWriter {

  private static final Logger log = LoggerFactory.getLogger(StatusWriter.class);

  private final KubernetesClient client;

  public StatusWriter(KubernetesClient client) {
    this.client = client;
  }

  /** Returns true when a patch was sent. */
  @SuppressWarnings("unchecked")
  public <R extends HasMetadata> boolean write(R resource, Object old, Object next) {
    if (Objects.equals(next, old)) {
      return false;
    }
    log.debug("status change: {} -> {}", Serialization.asJson(old), Serialization.asJson(next));
    client
        .resources((Class<R>) resource.getClass())
        .inNamespace(resource.getMetadata().getNamespace())
        .withName(resource.getMetadata().getName())
        .subresource("status")
        .patch(
            PatchContext.of(PatchType.JSON),
            Serialization.asJson(List.of(Map.of("op", "add", "path", "/status", "value", next))));
    return true;
  }
}
