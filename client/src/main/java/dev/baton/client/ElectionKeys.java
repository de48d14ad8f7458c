package dev.baton.client;

/**
 * The Redis keys of one election, shared by the operator (which writes them) and applications
 * (which read them): the holder record, the term counter, the term reservation with the replication
 * id it was made in, and the handover record. All share the hash tag {electionKey}, so one script
 * can touch them together on Redis Cluster.
 *
 * @param electionKey the LeaderGroup's {@code spec.electionKey}, or {@code <namespace>/<name>}
 */
public record ElectionKeys(String electionKey) {

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

  /** The record last taken over or released, until its pod lets go. */
  public String handover() {
    return "baton:{" + electionKey + "}:handover";
  }
}
