package dev.baton.client;

import java.util.Map;

/**
 * What one read or watch event showed of the followed pod: its uid, labels and annotations, or that
 * it does not exist.
 */
public record PodFacts(
    boolean exists, String uid, Map<String, String> labels, Map<String, String> annotations) {

  public static final PodFacts GONE = new PodFacts(false, null, Map.of(), Map.of());

  public PodFacts {
    labels = Map.copyOf(labels);
    annotations = Map.copyOf(annotations);
  }
}
