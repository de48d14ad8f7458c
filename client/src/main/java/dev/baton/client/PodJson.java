package dev.baton.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashMap;
import java.util.Map;

/** What {@link PodWatch} makes of a pod's JSON, from a read or a watch event. */
final class PodJson {

  private PodJson() {}

  static PodFacts facts(JsonNode pod) {
    JsonNode meta = pod.path("metadata");
    JsonNode status = pod.path("status");
    return new PodFacts(
        true,
        meta.path("uid").asText(null),
        strings(meta.path("labels")),
        strings(meta.path("annotations")),
        PodReadiness.isReady(
            status.path("phase").asText(null),
            status.path("conditions"),
            c -> c.path("type").asText(null),
            c -> c.path("status").asText(null)),
        status.path("podIP").asText(null),
        !meta.path("deletionTimestamp").isMissingNode()
            && !meta.path("deletionTimestamp").isNull());
  }

  /** The term the pod leads with by its labels ({@code metadata}), or -1. */
  static long term(JsonNode meta, String roleLabel) {
    if (!BatonNames.LEADER.equals(meta.path("labels").path(roleLabel).asText(null))) {
      return -1;
    }
    String term = meta.path("annotations").path(BatonNames.TERM_ANNOTATION).asText(null);
    try {
      return term == null ? -1 : Long.parseLong(term.trim());
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  private static Map<String, String> strings(JsonNode object) {
    Map<String, String> out = new HashMap<>();
    object.fields().forEachRemaining(f -> out.put(f.getKey(), f.getValue().asText()));
    return out;
  }
}
