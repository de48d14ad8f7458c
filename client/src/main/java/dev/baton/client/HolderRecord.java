package dev.baton.client;

import java.util.Optional;

/**
 * Who holds an election lease, as the operator stores it in Redis: {@code
 * clusterId|namespace|pod|uid|term}. The cluster id lets operators of several clusters share one
 * election and take over early only what they wrote themselves.
 */
public record HolderRecord(String clusterId, String namespace, String pod, String uid, long term) {

  private static final String SEPARATOR = "|";

  /** The record without its term: the acquire script appends the term it assigns. */
  public static String prefix(String clusterId, String namespace, String pod, String uid) {
    return String.join(SEPARATOR, clusterId, namespace, pod, uid);
  }

  public String encode() {
    return prefix(clusterId, namespace, pod, uid) + SEPARATOR + term;
  }

  /** Parses a record; anything that is not one of ours (another tool's value) gives empty. */
  public static Optional<HolderRecord> parse(String value) {
    if (value == null || value.isEmpty()) {
      return Optional.empty();
    }
    String[] parts = value.split("\\|", -1);
    if (parts.length != 5) {
      return Optional.empty();
    }
    try {
      return Optional.of(
          new HolderRecord(parts[0], parts[1], parts[2], parts[3], Long.parseLong(parts[4])));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }
}
