package dev.baton.client;

import java.util.Map;

/**
 * What one read or watch event showed of the followed pod: its uid, labels and annotations, whether
 * it was ready, or that it does not exist.
 *
 * @param ready ready as {@link PodReadiness} counts it, as the operator does, so that the agent can
 *     tell when the operator is about to demote this pod
 */
public record PodFacts(
    boolean exists,
    String uid,
    Map<String, String> labels,
    Map<String, String> annotations,
    boolean ready) {

  public static final PodFacts GONE = new PodFacts(false, null, Map.of(), Map.of(), false);

  public PodFacts {
    labels = Map.copyOf(labels);
    annotations = Map.copyOf(annotations);
  }
}
