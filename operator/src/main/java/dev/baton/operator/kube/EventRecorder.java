package dev.baton.operator.kube;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records Kubernetes Events about Baton's resources. The event name is derived from the object,
 * reason and message, so a repeated event bumps a count instead of flooding the namespace. A
 * failure to record is logged and never fails the reconcile that asked for it.
 */
public class EventRecorder {

  private static final Logger log = LoggerFactory.getLogger(EventRecorder.class);
  private static final String COMPONENT = "baton-operator";

  private final KubernetesClient client;
  private final Clock clock;

  public EventRecorder(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
  }

  public void record(HasMetadata about, EventReason reason, String message) {
    String ns = about.getMetadata().getNamespace();
    String name = eventName(about, reason, message);
    String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
    var events = client.v1().events().inNamespace(ns);
    try {
      // Create first: a new event is one request; only a repeat (409) costs a read and a patch.
      events.resource(newEvent(about, name, reason, message, now)).create();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 409) {
        log.warn(
            "Could not record event {} on {}/{}: {}",
            reason,
            ns,
            about.getMetadata().getName(),
            e.getMessage());
        return;
      }
      bumpCount(events.withName(name), now, reason, about);
    } catch (RuntimeException e) {
      // The replica's write fence, say: this replica may not write just now.
      log.info(
          "Could not record event {} on {}/{}: {}",
          reason,
          ns,
          about.getMetadata().getName(),
          e.getMessage());
    }
  }

  /** The same object, reason and message give the same name: a repeat is the same Event. */
  private static String eventName(HasMetadata about, EventReason reason, String message) {
    return about.getMetadata().getName()
        + "."
        + UUID.nameUUIDFromBytes(
                (about.getMetadata().getUid() + reason + message).getBytes(StandardCharsets.UTF_8))
            .toString()
            .substring(0, 13)
            .replace("-", "");
  }

  private static io.fabric8.kubernetes.api.model.Event newEvent(
      HasMetadata about, String name, EventReason reason, String message, String now) {
    String ns = about.getMetadata().getNamespace();
    return new EventBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(ns)
        .endMetadata()
        .withInvolvedObject(
            new ObjectReferenceBuilder()
                .withApiVersion(about.getApiVersion())
                .withKind(about.getKind())
                .withName(about.getMetadata().getName())
                .withNamespace(ns)
                .withUid(about.getMetadata().getUid())
                .build())
        .withType(reason.type())
        .withReason(reason.name())
        .withMessage(message)
        .withCount(1)
        .withFirstTimestamp(now)
        .withLastTimestamp(now)
        .withNewSource(COMPONENT, null)
        .withReportingComponent(COMPONENT)
        .build();
  }

  private void bumpCount(
      io.fabric8.kubernetes.client.dsl.Resource<io.fabric8.kubernetes.api.model.Event> event,
      String now,
      EventReason reason,
      HasMetadata about) {
    try {
      var existing = event.get();
      int count = existing == null || existing.getCount() == null ? 2 : existing.getCount() + 1;
      event.patch(
          PatchContext.of(PatchType.JSON_MERGE),
          "{\"count\":" + count + ",\"lastTimestamp\":\"" + now + "\"}");
    } catch (RuntimeException e) {
      log.warn(
          "Could not record event {} on {}/{}: {}",
          reason,
          about.getMetadata().getNamespace(),
          about.getMetadata().getName(),
          e.getMessage());
    }
  }
}
