package dev.baton.operator.lease;

import java.util.List;

/**
 * The Redis keys of one election: the holder record, the term counter and the term reservation with
 * the replication id it was made in (see {@code reservation.lua}). All share the hash tag
 * {electionKey}, so one script can touch them together on Redis Cluster.
 */
public record LeaseKeys(String electionKey) {

  public String holder() {
    return "baton:{" + electionKey + "}:leader";
  }

  public String term() {
    return "baton:{" + electionKey + "}:term";
  }

  public String reservation() {
    return "baton:{" + electionKey + "}:reserved";
  }

  /** The replication id of the Redis data the reservation was written into. */
  public String reservedReplid() {
    return "baton:{" + electionKey + "}:reserved-replid";
  }

  /** The record last taken over or released, until its pod lets go (see lease-acquire.lua). */
  public String handover() {
    return "baton:{" + electionKey + "}:handover";
  }

  List<Object> both() {
    return List.of(holder(), term());
  }

  List<Object> all() {
    return List.of(holder(), term(), reservation(), handover(), reservedReplid());
  }
}
