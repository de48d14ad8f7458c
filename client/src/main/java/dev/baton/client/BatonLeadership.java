package dev.baton.client;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the pod this process runs in leads its Baton LeaderGroup, and with which fencing term,
 * learned within milliseconds of a change: from the pod's own labels through a watch on that one
 * pod ({@link #watchingPod}), or from the election's record in Redis ({@link #readingRedis}).
 *
 * <pre>{@code
 * try (BatonLeadership leadership = BatonLeadership.watchingPod(Options.defaults())) {
 *   leadership.addListener(new LeadershipListener() {
 *     public void granted(long term) { worker.start(term); }
 *     public void revoked(String reason) { worker.stop(); }
 *   });
 *   ...
 * }
 * }</pre>
 *
 * <p>Safety first: every confirmation of leadership is valid for the lease's time-to-live from the
 * moment it was asked for. A leader that cannot confirm again before that (its watch broken, Redis
 * unreachable) is revoked, unless {@link Options#stayLeaderWhenUnconfirmed()} says otherwise.
 * Listeners run on this object's own thread, one call at a time.
 */
public final class BatonLeadership implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(BatonLeadership.class);

  private static final long DEADLINE_CHECK_MILLIS = 25;

  /**
   * A leadership ends this long before its confirmation runs out, so that a late timer or a short
   * pause of this process still revokes it before a successor can be granted.
   */
  static final long DEADLINE_MARGIN_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  /**
   * How a process follows its leadership.
   *
   * @param confirmEvery how often leadership is read again besides the change notifications
   * @param confirmWithin the Kubernetes source only: how long a read of the pod confirms
   *     leadership, and how long a promotion is seen before it is granted. Every pod of a group
   *     must use the same value (they normally run the same code); at least twice {@code
   *     confirmEvery}. The Redis source uses the lease's own remaining time instead
   * @param stayLeaderWhenUnconfirmed keep leading while the confirmation source is down, until a
   *     confirmation says otherwise. Off by default: a leader cut off from its source could then
   *     work on after another pod was granted leadership, and only the term would keep their writes
   *     apart
   * @param roleLabel the LeaderGroup's {@code spec.roleLabel} (the Kubernetes source reads it)
   */
  public record Options(
      Duration confirmEvery,
      Duration confirmWithin,
      boolean stayLeaderWhenUnconfirmed,
      String roleLabel) {

    public Options {
      if (confirmEvery.toMillis() < 10) {
        throw new IllegalArgumentException("confirmEvery must be at least 10ms");
      }
      if (confirmWithin.compareTo(confirmEvery.multipliedBy(2)) < 0) {
        throw new IllegalArgumentException(
            "confirmWithin ("
                + confirmWithin.toMillis()
                + "ms) must be at least twice confirmEvery ("
                + confirmEvery.toMillis()
                + "ms)");
      }
    }

    /** Read every 500 ms; a read of the pod holds 2 s; revoke when unconfirmed. */
    public static Options defaults() {
      return new Options(
          Duration.ofMillis(500), Duration.ofSeconds(2), false, BatonNames.DEFAULT_ROLE_LABEL);
    }

    public Options withConfirmEvery(Duration every) {
      return new Options(every, confirmWithin, stayLeaderWhenUnconfirmed, roleLabel);
    }

    public Options withConfirmWithin(Duration within) {
      return new Options(confirmEvery, within, stayLeaderWhenUnconfirmed, roleLabel);
    }

    public Options withStayLeaderWhenUnconfirmed(boolean stay) {
      return new Options(confirmEvery, confirmWithin, stay, roleLabel);
    }

    public Options withRoleLabel(String label) {
      return new Options(confirmEvery, confirmWithin, stayLeaderWhenUnconfirmed, label);
    }
  }

  /** When a promotion seen on the pod's labels is acted on. */
  public enum Promotion {
    /**
     * Once it has been seen for {@code confirmWithin}: by then the predecessor has seen its
     * demotion or revoked itself for want of confirmation. Safe on its own.
     */
    AFTER_CONFIRM_WITHIN,
    /**
     * As soon as it is seen: a new term on the pod watch is granted until the read it triggers
     * answers (at most {@code confirmEvery}), and that read confirms it for {@code confirmWithin}.
     * Only for a process that keeps its predecessor out by other means, as the Baton agent does
     * with its gate key in Redis: on its own, two processes could both believe they lead for up to
     * {@code confirmWithin}.
     */
    AT_ONCE
  }

  /**
   * What this process believes, told on every change: a grant, a confirmation that moves the
   * deadline, a revocation. For a caller that decides with its own rule (the Baton agent's gate).
   *
   * @param confirmedUntilNanos while leader, until when (System.nanoTime) the belief holds
   */
  public record Belief(boolean leader, long term, long confirmedUntilNanos) {}

  /** How a source's push channel (the pod watch) stands: what a metric shows. */
  public enum WatchState {
    /** Asked for, not answered yet: at the start, and after each retry. */
    OPENING,
    /** Open: changes arrive as they are written. */
    OPEN,
    /**
     * Failed without an answer (a connection that timed out or was reset, a stream cut): asked for
     * again within 100 ms, then later and later; the pod is read every 70 ms meanwhile.
     */
    BROKEN,
    /**
     * Answered with a refusal (a 4xx or 5xx): asked for again later and later; reads keep their
     * usual pace, not to add to the load of a server that refuses.
     */
    REFUSED
  }

  /** A source's news: whether this pod leads, and for how long that answer holds. */
  record Confirmation(boolean leader, long term, long validForMillis, long askedAtNanos) {}

  /** Where leadership is learned from. */
  interface Source extends AutoCloseable {

    /** Starts telling {@code sink} what it learns; errors go to {@code unreachable}. */
    void start(
        java.util.function.Consumer<Confirmation> sink,
        java.util.function.Consumer<String> unreachable);

    /** This process stopped believing it leads with {@code term}: let a successor go ahead. */
    default void released(long term) {}

    /** Whether the source's push channel (the pod watch, a subscription) is open now. */
    default boolean watching() {
      return true;
    }

    /** How many times that channel failed or was refused since the start. */
    default long watchFailures() {
      return 0;
    }

    /** How that channel stands. */
    default WatchState watchState() {
      return watching() ? WatchState.OPEN : WatchState.BROKEN;
    }

    @Override
    void close();
  }

  private final Source source;
  private final Options options;
  private final List<LeadershipListener> listeners = new CopyOnWriteArrayList<>();
  private final List<java.util.function.Consumer<Belief>> followers = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService thread;
  private volatile boolean leader;
  private volatile long term;
  private volatile long deadlineNanos;
  private boolean answered;
  private long lastAsked;
  private String lastProblem;
  private boolean closed;

  BatonLeadership(Source source, Options options) {
    this.source = source;
    this.options = options;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("baton-leadership"));
    thread.scheduleWithFixedDelay(
        this::checkDeadline, DEADLINE_CHECK_MILLIS, DEADLINE_CHECK_MILLIS, TimeUnit.MILLISECONDS);
    source.start(
        c -> thread.execute(() -> confirmed(c)), why -> thread.execute(() -> lastProblem = why));
  }

  /**
   * Follows the pod this process runs in through the Kubernetes API: a watch on that one pod (its
   * role label and {@code baton.dev/term} annotation) and a read every {@code confirmEvery}. In a
   * pod: the service account's token and CA, POD_NAMESPACE and POD_NAME from the downward API; it
   * needs {@code get} and {@code watch} on pods of its namespace.
   */
  public static BatonLeadership watchingPod(Options options) {
    return watchingPod(PodWatch.Target.fromEnvironment(System.getenv()), options);
  }

  /** The same against a given API server, without credentials (tests, a local proxy). */
  public static BatonLeadership watchingPod(
      URI apiServer, String namespace, String pod, Options options) {
    return watchingPod(new PodWatch.Target(apiServer, namespace, pod, null, null), options);
  }

  /**
   * Follows a named pod through the given API (a kubeconfig's server and credentials, say), acting
   * on a promotion as {@code promotion} says, and telling {@code podSeen} what every read and watch
   * event showed of the pod (on the watch's threads, not the leadership thread).
   */
  public static BatonLeadership watchingPod(
      KubernetesApi api,
      String namespace,
      String pod,
      Options options,
      Promotion promotion,
      java.util.function.Consumer<PodFacts> podSeen) {
    return new BatonLeadership(
        new PodWatch(PodWatch.Target.of(api, namespace, pod), options, promotion, podSeen),
        options);
  }

  static BatonLeadership watchingPod(PodWatch.Target target, Options options) {
    return new BatonLeadership(new PodWatch(target, options), options);
  }

  /**
   * Follows the election's record in its Redis: this pod leads while the record names its uid.
   * Notified by the lease scripts on the channel {@code baton:leases}, and read every {@code
   * confirmEvery}; each read's remaining time (PTTL) is how long its answer holds. A new leader is
   * told only once its predecessor let go of the term (or its lease ran out), so two processes
   * following Redis never both believe they lead.
   *
   * @param electionKey the LeaderGroup's {@code spec.electionKey}, or {@code <namespace>/<name>}
   * @param podUid this pod's uid (downward API: metadata.uid)
   */
  public static BatonLeadership readingRedis(
      RedissonClient redisson, String electionKey, String podUid, Options options) {
    return new BatonLeadership(
        new LeaseRecordWatch(redisson, electionKey, podUid, options), options);
  }

  /** The same, with the pod's uid from POD_UID. */
  public static BatonLeadership readingRedis(
      RedissonClient redisson, String electionKey, Options options) {
    Map<String, String> env = System.getenv();
    String uid = env.get(LockOwner.POD_UID);
    if (uid == null || uid.isBlank()) {
      throw new IllegalStateException(
          LockOwner.POD_UID + " must be set (downward API:" + " metadata.uid)");
    }
    return readingRedis(redisson, electionKey, uid.trim(), options);
  }

  /** Whether this pod leads, as last confirmed. */
  public boolean isLeader() {
    return leader;
  }

  /**
   * Until when, by {@link System#nanoTime()}, the last confirmation holds: after it, this process
   * must act as though it does not lead, whether or not the revocation has run yet.
   */
  public long confirmedUntilNanos() {
    return deadlineNanos;
  }

  /**
   * Whether the pod watch (or the Redis subscription) is open now: while it is not, news of a
   * change waits for the next read ({@link #watchState} says how often the pod is read then).
   */
  public boolean watching() {
    return source.watching();
  }

  /** How many times the watch failed or was refused since the start (each one is logged). */
  public long watchFailures() {
    return source.watchFailures();
  }

  /**
   * How the pod watch (or the Redis subscription) stands, for a metric: open, opening, broken
   * (retried within 100 ms, then with a back-off up to 5 s, the pod read every 70 ms meanwhile) or
   * refused by the server (retried with a back-off up to 30 s, reads at their usual pace).
   */
  public WatchState watchState() {
    return source.watchState();
  }

  /** The term of the current leadership; after a revocation, the term of the last one; else 0. */
  public long term() {
    return term;
  }

  /**
   * Adds a listener; it is told {@code granted} at once (on the leadership thread) if this pod
   * leads now.
   */
  public void addListener(LeadershipListener listener) {
    thread.execute(
        () -> {
          listeners.add(listener);
          if (leader) {
            call(() -> listener.granted(term));
          }
        });
  }

  /**
   * Tells {@code follower} the belief now and every change of it (on the leadership thread): every
   * grant, every confirmation that moves the deadline, every revocation.
   */
  public void follow(java.util.function.Consumer<Belief> follower) {
    thread.execute(
        () -> {
          followers.add(follower);
          call(() -> follower.accept(new Belief(leader, term, deadlineNanos)));
        });
  }

  private void tellFollowers() {
    Belief b = new Belief(leader, term, deadlineNanos);
    followers.forEach(f -> call(() -> f.accept(b)));
  }

  public void removeListener(LeadershipListener listener) {
    listeners.remove(listener);
  }

  private void confirmed(Confirmation c) {
    if (closed || answered && c.askedAtNanos() - lastAsked < 0) {
      return; // an answer that a newer one overtook
    }
    answered = true;
    lastAsked = c.askedAtNanos();
    lastProblem = null;
    if (c.leader()) {
      long deadline =
          c.askedAtNanos()
              + TimeUnit.MILLISECONDS.toNanos(c.validForMillis())
              - DEADLINE_MARGIN_NANOS;
      if (leader && term != c.term()) {
        revoke("the term changed from " + term + " to " + c.term());
      }
      deadlineNanos = deadline;
      if (!leader) {
        if (System.nanoTime() - deadline >= 0) {
          return;
        }
        leader = true;
        term = c.term();
        log.info("granted term {}", term);
        listeners.forEach(l -> call(() -> l.granted(c.term())));
      }
      tellFollowers();
    } else if (leader) {
      revoke("another pod leads now");
    }
  }

  private void checkDeadline() {
    if (leader && !options.stayLeaderWhenUnconfirmed() && System.nanoTime() - deadlineNanos >= 0) {
      revoke(
          "leadership could not be confirmed before its lease ran out"
              + (lastProblem == null ? "" : " (" + lastProblem + ")"));
    }
  }

  private void revoke(String reason) {
    leader = false;
    log.info("revoked term {}: {}", term, reason);
    tellFollowers();
    listeners.forEach(l -> call(() -> l.revoked(reason)));
    source.released(term);
  }

  private static void call(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      log.warn("a leadership listener failed", e);
    }
  }

  /** Revokes leadership (telling the listeners), lets a successor go ahead, and stops. */
  @Override
  public void close() {
    try {
      thread
          .submit(
              () -> {
                if (leader) {
                  revoke("closed");
                }
                closed = true;
              })
          .get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.debug("closing leadership: {}", e.toString());
    }
    thread.shutdownNow();
    source.close();
  }
}
