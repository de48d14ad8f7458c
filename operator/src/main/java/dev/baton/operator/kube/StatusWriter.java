package dev.baton.operator.kube;

import dev.baton.operator.metrics.FailoverTrace;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BinaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a resource's status, only when it changed, as an update of the status subresource guarded
 * by the resourceVersion it was computed from. The status holds the fencing reservation, which must
 * never go down (docs/design.md, "Terms and tokens never repeat"): a write based on a stale copy is
 * refused by the API server (409), and is retried on the current object with the reservation
 * merged, so whatever another writer reserved in between is kept. The whole status is ours, so a
 * replace cannot leave stale conditions behind in any server's handling of arrays and nulls.
 */
public final class StatusWriter {

  private static final Logger log = LoggerFactory.getLogger(StatusWriter.class);
  private static final int ATTEMPTS = 5;

  private final KubernetesClient client;

  /**
   * Per resource uid, the last write: the resourceVersion it replaced and the object it made. An
   * informer cache shows our own write a moment later; until then a write based on the cached copy
   * starts from what we wrote instead of failing once with 409.
   */
  private final Map<String, Last<?>> last = new ConcurrentHashMap<>();

  private record Last<R>(String replaced, R written) {}

  public StatusWriter(KubernetesClient client) {
    this.client = client;
  }

  /**
   * Writes {@code next} over {@code seen}'s status.
   *
   * @param keep merges what must survive from the status on the server into the status to write
   *     (the higher reservation): {@code keep(current, next)}
   * @return the status the write replaced and the status on the server afterwards (both the same
   *     when nothing needed writing); null when the resource is gone
   * @throws KubernetesClientException when the API server refused or failed the write
   */
  public <S, R extends CustomResource<?, S>> Written<S> write(
      R seen, S next, BinaryOperator<S> keep) {
    R current = newest(seen);
    for (int attempt = 1; ; attempt++) {
      S base = current.getStatus();
      S merged = base == null ? next : keep.apply(base, next);
      if (Objects.equals(merged, base)) {
        return new Written<>(base, base);
      }
      log.debug(
          "status change: {} -> {}", Serialization.asJson(base), Serialization.asJson(merged));
      String ns = seen.getMetadata().getNamespace();
      String name = seen.getMetadata().getName();
      try {
        FailoverTrace.stamp(FailoverTrace.Step.STATUS_SENT, ns, name, seen.getKind());
        R written = client.resource(copyWithStatus(current, merged)).updateStatus();
        FailoverTrace.stamp(FailoverTrace.Step.STATUS_ANSWERED, ns, name, seen.getKind());
        if (written != null) {
          last.put(
              seen.getMetadata().getUid(),
              new Last<>(current.getMetadata().getResourceVersion(), written));
        }
        return new Written<>(base, written == null ? merged : written.getStatus());
      } catch (KubernetesClientException e) {
        if (e.getCode() == 404) {
          return null;
        }
        if (e.getCode() != 409 || attempt >= ATTEMPTS) {
          throw e;
        }
        current = client.resource(current).get();
        if (current == null) {
          return null;
        }
      }
    }
  }

  /** Forgets what was written for a resource that is gone. */
  public void forget(String uid) {
    last.remove(uid);
  }

  @SuppressWarnings("unchecked")
  private <R extends CustomResource<?, ?>> R newest(R seen) {
    Last<?> l = last.get(seen.getMetadata().getUid());
    if (l != null && Objects.equals(l.replaced(), seen.getMetadata().getResourceVersion())) {
      return (R) l.written();
    }
    return seen;
  }

  /** A status write: what it replaced (null: no status yet) and what the server holds now. */
  public record Written<S>(S before, S after) {}

  /**
   * Name, namespace and resourceVersion of {@code from}, and {@code status}: nothing of the cache.
   */
  @SuppressWarnings("unchecked")
  private static <S, R extends CustomResource<?, S>> R copyWithStatus(R from, S status) {
    R copy;
    try {
      copy = (R) from.getClass().getDeclaredConstructor().newInstance();
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot copy " + from.getClass().getSimpleName(), e);
    }
    ObjectMeta m = from.getMetadata();
    copy.setMetadata(
        new ObjectMetaBuilder()
            .withName(m.getName())
            .withNamespace(m.getNamespace())
            .withResourceVersion(m.getResourceVersion())
            .build());
    copy.setStatus(status);
    return copy;
  }
}
