package dev.baton.client;

/**
 * The label and annotation keys and values that Baton writes and reads on pods and on its own
 * resources (docs/api.md, "Resources"): the one list the operator, the agent, the kubectl plugin
 * and this library share, so that what one writes the others read.
 */
public final class BatonNames {

  /**
   * The role label's key when a LeaderGroup names none. Also in {@code api} (LeaderGroupSpec),
   * which this library may not depend on (it would pull the Kubernetes model into every
   * application); ExamplesTest checks that the two agree.
   */
  public static final String DEFAULT_ROLE_LABEL = "baton.dev/role";

  public static final String LEADER = "leader";
  public static final String FOLLOWER = "follower";

  public static final String GROUP_ANNOTATION = "baton.dev/leader-group";
  public static final String TERM_ANNOTATION = "baton.dev/term";
  public static final String LEADER_SINCE_ANNOTATION = "baton.dev/leader-since";

  /**
   * The group's spec.roleLabel, on its pods only when it is not the default: what lets the marks of
   * a group deleted while no operator ran be cleared without its spec.
   */
  public static final String ROLE_LABEL_ANNOTATION = "baton.dev/role-label";

  /**
   * On a pod, set by whoever owns its template: the role-label keys (comma-separated) a LeaderGroup
   * may write on it although they lie outside baton.dev/ and the operator's allowed prefixes.
   */
  public static final String ALLOW_ROLE_LABEL_ANNOTATION = "baton.dev/allow-role-label";

  public static final String DELETION_COST_ANNOTATION =
      "controller.kubernetes.io/pod-deletion-cost";

  /** High enough that a ReplicaSet scale-down picks any follower first. */
  public static final String LEADER_DELETION_COST = "1000000";

  /**
   * On the leader: the group's spec.failoverDelay, or {@link #FAILOVER_PAUSED}. What lets the pod's
   * agent tell, from its own pod, whether a not-ready leader is about to be demoted.
   */
  public static final String FAILOVER_DELAY_ANNOTATION = "baton.dev/failover-delay";

  public static final String FAILOVER_PAUSED = "paused";

  public static final String PRIORITY_ANNOTATION = "baton.dev/priority";
  public static final String SWITCHOVER_ANNOTATION = "baton.dev/switchover-to";

  /** "false" on a pod: never elected, and switched away from while it leads. */
  public static final String CANDIDATE_ANNOTATION = "baton.dev/candidate";

  /**
   * The prefix of a granted lock's label {@code locks.baton.dev/<lock-name>: held} on its holder
   * pod, and of the annotation of the same key that carries the fencing token.
   */
  public static final String LOCK_PREFIX = "locks.baton.dev/";

  public static final String HELD = "held";

  /**
   * The label by which a pod asks for the agent to be injected, its value the mode ({@code gate} or
   * {@code relay}); the webhook's objectSelector matches it.
   */
  public static final String AGENT_LABEL = "baton.dev/agent";

  /** The injected agent's container name. */
  public static final String AGENT_CONTAINER = "baton-agent";

  /** {@code kubectl annotate rlock X baton.dev/force-release=now}. */
  public static final String FORCE_RELEASE_ANNOTATION = "baton.dev/force-release";

  /**
   * On a LeaderGroup or RedisLock, with per-group Redis users: a new value gives its Redis user a
   * new password (the previous one is accepted until the next rotation).
   */
  public static final String ROTATE_REDIS_PASSWORD_ANNOTATION = "baton.dev/rotate-redis-password";

  /** The Secret with a LeaderGroup's own Redis user, in the group's namespace. */
  public static String redisUserSecret(String group) {
    return "baton-redis-" + group;
  }

  /** The Secret with a RedisLock's own Redis user, in the lock's namespace. */
  public static String redisLockUserSecret(String lock) {
    return "baton-redis-lock-" + lock;
  }

  /** A key in Baton's domain: baton.dev/... or a subdomain such as locks.baton.dev/... */
  public static boolean isBatonKey(String key) {
    int slash = key.indexOf('/');
    if (slash < 0) {
      return false;
    }
    String prefix = key.substring(0, slash);
    return prefix.equals("baton.dev") || prefix.endsWith(".baton.dev");
  }

  private BatonNames() {}
}
