package dev.baton.operator.lease;

import java.util.List;

/**
 * The Redis keys of one election. Both share the hash tag {electionKey}, so one script can touch
 * both on Redis Cluster.
 */
public record LeaseKeys(String electionKey) {

  public String holder() {
    return "baton:{" + electionKey + "}:leader";
  }

  public String term() {
    return "baton:{" + electionKey + "}:term";
  }

  List<Object> both() {
    return List.of(holder(), term());
  }
}
