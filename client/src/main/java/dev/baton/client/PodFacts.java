package dev.baton.client;

import java.util.Map;

/**
 * What one read or watch event showed of the followed pod: its uid, labels and annotations, whether
 * it was ready, or that it does not exist.
 *
 * @param ready ready as {@link PodReadiness} counts it, as the operator does, so that the agent can
 *     tell when the operator is about to demote this pod
 * @param ip the pod's {@code status.podIP}, or null before it has one
 * @param terminating the pod has a deletion timestamp: it is never a candidate again
 */
public record PodFacts(
    boolean exists,
    String uid,
    Map<String, String> labels,
    Map<String, String> annotations,
    boolean ready,
    String ip,
    boolean terminating) {

  public static final PodFacts GONE =
      new PodFacts(false, null, Map.of(), Map.of(), false, null, false);

  public PodFacts {
    labels = Map.copyOf(labels);
    annotations = Map.copyOf(annotations);
  }

  /** Facts of a pod that is not terminating. */
  public PodFacts(
      boolean exists,
      String uid,
      Map<String, String> labels,
      Map<String, String> annotations,
      boolean ready,
      String ip) {
    this(exists, uid, labels, annotations, ready, ip, false);
  }

  /** Facts without an address, as before pods' addresses were read. */
  public PodFacts(
      boolean exists,
      String uid,
      Map<String, String> labels,
      Map<String, String> annotations,
      boolean ready) {
    this(exists, uid, labels, annotations, ready, null, false);
  }
}
