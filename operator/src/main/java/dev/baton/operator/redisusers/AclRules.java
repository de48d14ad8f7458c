package dev.baton.operator.redisusers;

import dev.baton.client.ElectionKeys;
import dev.baton.client.LockKeys;
import java.util.ArrayList;
import java.util.List;

/**
 * The Redis ACL rules of the user an agent of one LeaderGroup, or the holders of one RedisLock, log
 * in as (docs/redis-acl.md gives each rule's reason). Keys are named exactly, never by a pattern
 * that another resource's key could match; EVAL needs read and write on every key a script is
 * given, so the keys a script reads are listed in full too.
 */
public final class AclRules {

  /** Every user's name starts so; nothing else the operator touches does. */
  public static final String GROUP_USER_PREFIX = "baton-group:";

  public static final String LOCK_USER_PREFIX = "baton-lock:";

  /**
   * What an agent's client and its scripts run: the scripts (EVAL, SCRIPT LOAD and EVALSHA, as
   * Redisson sends them), the calls inside them (GET SET DEL PTTL INCR PEXPIRE PUBLISH, INFO for
   * the incarnation, TIME), EXISTS for a lock's reservation, the subscriptions, and what Redisson
   * sends on every connection (PING, CLIENT SETNAME). Nothing that lists, scans or reads a key it
   * is not given.
   */
  static final List<String> COMMANDS =
      List.of(
          "-@all",
          "+eval",
          "+evalsha",
          "+script|load",
          "+get",
          "+set",
          "+del",
          "+pttl",
          "+incr",
          "+pexpire",
          "+exists",
          "+publish",
          "+subscribe",
          "+unsubscribe",
          "+info",
          "+time",
          "+ping",
          "+client|setname",
          "+cluster|nodes",
          "+cluster|slots");

  /**
   * The pub/sub channels: the agent's gate notices, the lease and lock notices. They carry key
   * names only; whoever receives one reads the key it names, with its own rights.
   */
  static final List<String> CHANNELS = List.of("&baton:gates", "&baton:leases", "&baton:locks");

  /** The agent's GateKey.WARM_UP_KEY. */
  static final String WARM_UP = "baton:{gate:warm-up}";

  private AclRules() {}

  public static String groupUser(String namespace, String name) {
    return GROUP_USER_PREFIX + namespace + "/" + name;
  }

  public static String lockUser(String namespace, String name) {
    return LOCK_USER_PREFIX + namespace + "/" + name;
  }

  /**
   * An agent of the group: its gate key and the term beside it, and the two election keys its
   * leadership reads (the holder record and the handover record), not the term counter nor its
   * reservations, which only the operator writes. Also the agent's warm-up key, which no gate uses
   * (a gate key has a '/'): the agent's first script runs on it, writing nothing. And the keys of
   * the namespace's RedisLocks, {@code lockKeys}: the agent's lock API takes its namespace's locks
   * by name, and the namespace is the tenant.
   */
  public static List<String> group(
      String namespace, String name, String electionKey, List<String> lockKeys) {
    String gate = "baton:{gate:" + namespace + "/" + name + "}";
    ElectionKeys election = new ElectionKeys(electionKey);
    List<String> keys =
        new ArrayList<>(
            List.of(
                gate,
                gate + ":term",
                election.holder(),
                election.handover(),
                WARM_UP,
                WARM_UP + ":term"));
    lockKeys.stream().sorted().forEach(k -> keys.addAll(lockKeyNames(k)));
    return rules(keys);
  }

  /**
   * A holder of the lock: the holder value, the fencing counter and its reservation (the acquire
   * script raises the counter to it), and the reservation's replication id.
   */
  public static List<String> lock(String key) {
    return rules(lockKeyNames(key));
  }

  private static List<String> lockKeyNames(String key) {
    LockKeys keys = new LockKeys(key);
    return List.of(keys.lock(), keys.token(), keys.reservation(), keys.reservedReplid());
  }

  private static List<String> rules(List<String> keys) {
    List<String> rules = new ArrayList<>(COMMANDS);
    rules.add("resetkeys");
    keys.forEach(k -> rules.add("~" + k));
    rules.add("resetchannels");
    rules.addAll(CHANNELS);
    return List.copyOf(rules);
  }
}
