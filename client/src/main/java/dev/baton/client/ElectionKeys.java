package dev.baton.client;

/**
 * The Redis keys of one election, shared by the operator (which writes them) and applications
 * (which read them): the holder record, the term counter, the term reservation with the replication
 * id it was made in, and the handover record. No suffix is a lock's ({@link LockKeys}), so an
 * election and a lock never touch one key. All share the hash tag {electionKey}, so one script can
 * touch them together on Redis Cluster.
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

  /**
   * The term reservation. Its own suffix, not the lock's {@code :reserved}: a lock and an election
   * on one key once shared that key, so a lock's token ceiling raised the group's term ceiling
   * beyond what its status recorded (docs/design.md, "Terms and tokens never repeat").
   */
  public String reservation() {
    return "baton:{" + electionKey + "}:term-reserved";
  }

  /** The replication id of the Redis data the term reservation was written into. */
  public String reservedReplid() {
    return "baton:{" + electionKey + "}:term-reserved-replid";
  }

  /** The record last taken over or released, until its pod lets go. */
  public String handover() {
    return "baton:{" + electionKey + "}:handover";
  }
}
