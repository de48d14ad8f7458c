package dev.baton.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Which of a followed pod's reads and watch events are newer than what was passed on already. Newer
 * by the pod's resourceVersion where both have one (etcd-backed API servers number them; the API
 * conventions call them opaque, so anything else is compared by time): a watch event still on its
 * way when a newer read answered would otherwise undo what the read showed, and could end the
 * agent's cut of a pod that is about to be demoted. By time otherwise: a read answers for the
 * moment it was sent, so one sent before the last event arrived may show the pod as it was before
 * that event (ready, when the event said it no longer is); events come in order.
 */
final class PodFreshness {

  private boolean told;
  private long toldAt;
  private long toldVersion = -1;

  /**
   * @param version the pod's resourceVersion as a number, or -1
   * @param at when a read was sent or an event arrived ({@link System#nanoTime()})
   * @return whether to pass it on; if so, it is what was passed on last from now
   */
  synchronized boolean newer(long version, long at, boolean read) {
    if (version >= 0 && toldVersion >= 0 && version < toldVersion) {
      return false;
    }
    if (read && told && at - toldAt < 0 && (version < 0 || toldVersion < 0)) {
      return false;
    }
    if (!told || at - toldAt > 0) {
      toldAt = at;
    }
    toldVersion = Math.max(toldVersion, version);
    told = true;
    return true;
  }

  /** The pod's resourceVersion as a number, or -1 when it has none or another form. */
  static long version(JsonNode pod) {
    try {
      return Long.parseLong(pod.path("metadata").path("resourceVersion").asText(""));
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
