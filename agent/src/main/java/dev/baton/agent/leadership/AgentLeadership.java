package dev.baton.agent.leadership;

import dev.baton.client.BatonLeadership;
import dev.baton.client.DaemonThreads;
import dev.baton.client.KubernetesApi;
import dev.baton.client.LeadershipListener;
import dev.baton.client.PodFacts;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this pod may serve as its group's leader, by one rule ({@link GateRule}) for the gates
 * and the HTTP view: its pod is labeled leader and confirmed by a fresh read ({@link
 * BatonLeadership}), and, with Redis, this agent holds the group's gate key by a proven hold, by
 * its own clock with a margin before the hold could run out. Without Redis a promotion counts only
 * once it was seen for {@code confirmWithin}. Neither while the pod, as last seen, is one the
 * operator is certain to demote ({@link NotReadyCut}).
 *
 * <p>Every change of what the agent knows ends in {@link #apply}, under the lock, which opens,
 * extends or closes the gates to match the rule; a timer applies it every 10 ms so that a deadline
 * passing closes them too, and the gates check the deadline themselves before they relay a byte.
 */
public final class AgentLeadership implements AutoCloseable {

  public static final String GROUP = "baton.dev/leader-group";
  public static final String SINCE = "baton.dev/leader-since";

  private static final Logger log = LoggerFactory.getLogger(AgentLeadership.class);
  private static final long TICK_MILLIS = 20;
  private static final long HOLDER_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(2);

  private final String namespace;
  private final String pod;
  private final GateKey gateKey;
  private final long ttlNanos;
  private final long renewEveryNanos;
  private final long ttlLessMarginNanos;
  private final List<Exclusive> exclusives = new CopyOnWriteArrayList<>();
  private final List<Consumer<LeadershipView>> watchers = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService keyThread = daemon("baton-agent-gate-key");
  private final ScheduledExecutorService deadlineThread = daemon("baton-agent-gate-deadline");
  private final Object lock = new Object();
  private final RedisHealth redisHealth;
  private BatonLeadership leadership;
  private volatile String roleLabel;
  private volatile PodFacts facts;

  // Guarded by lock.
  private boolean confirmed;
  private boolean cut; // NotReadyCut applies to the pod as last seen
  private long term;
  private GateRule.Hold hold;
  private boolean closing;
  private boolean open;
  private long openUntilNanos;
  private boolean warnedNoGroup;
  private String leaderPod; // as the group's gate key names it, for followers
  private Long leaderTerm;
  private long holderReadNanos;
  private LeadershipView view;

  /**
   * @param redisson null: no gate key, the slower rule
   */
  public AgentLeadership(
      String namespace, String pod, Duration confirmWithin, RedissonClient redisson) {
    this.namespace = namespace;
    this.pod = pod;
    this.gateKey = redisson == null ? null : new GateKey(redisson, confirmWithin);
    this.ttlNanos = confirmWithin.toNanos();
    this.renewEveryNanos = confirmWithin.toNanos() / 4;
    long margin = Math.min(TimeUnit.MILLISECONDS.toNanos(100), confirmWithin.toNanos() / 10);
    this.ttlLessMarginNanos = ttlNanos - margin;
    this.redisHealth = new RedisHealth(confirmWithin.toNanos());
    this.view = new LeadershipView(false, null, pod, null, null, null, null);
  }

  /** Gates and the like, told on every open and close; add them before {@link #start}. */
  public void add(Exclusive exclusive) {
    exclusives.add(exclusive);
  }

  /** Starts following the pod through {@code api}. */
  public void start(KubernetesApi api, BatonLeadership.Options options) {
    BatonLeadership.Promotion promotion =
        gateKey == null
            ? BatonLeadership.Promotion.AFTER_CONFIRM_WITHIN
            : BatonLeadership.Promotion.AT_ONCE;
    roleLabel = options.roleLabel();
    leadership =
        BatonLeadership.watchingPod(api, namespace, pod, options, promotion, this::podSeen);
    leadership.addListener(
        new LeadershipListener() {
          @Override
          public void granted(long t) {
            onGranted(t);
          }

          @Override
          public void revoked(String reason) {
            onRevoked(reason);
          }
        });
    deadlineThread.scheduleWithFixedDelay(
        this::checkDeadline, TICK_MILLIS, TICK_MILLIS / 2, TimeUnit.MILLISECONDS);
    if (gateKey != null) {
      keyThread.scheduleWithFixedDelay(this::tick, 0, TICK_MILLIS, TimeUnit.MILLISECONDS);
      gateKey.listen(key -> onKeyThread(() -> keyChanged(key)), keyThread);
    }
  }

  /** Whether the first read of the pod has answered. */
  public boolean ready() {
    return facts != null;
  }

  /**
   * Why this agent should not count as ready although its pod was read: labeled leader, yet its
   * Redis has not answered for {@code confirmWithin}, so its gate cannot open. A readiness probe on
   * it makes the pod not ready, and the operator moves leadership to a pod whose gate can open.
   */
  public Optional<String> notReadyReason() {
    boolean labeledLeader;
    synchronized (lock) {
      labeledLeader = confirmed;
    }
    return labeledLeader && gateKey != null
        ? redisHealth
            .unreachableFor(System.nanoTime())
            .map(
                d ->
                    "this pod is labeled leader but its gate cannot open: Redis has not answered"
                        + " for "
                        + d.toMillis()
                        + " ms")
        : Optional.empty();
  }

  /** What the agent knows of its Redis, for /metrics. */
  public RedisHealth redisHealth() {
    return redisHealth;
  }

  /** Whether the pod, as last seen, is ready as the operator counts it. */
  public boolean podReady() {
    PodFacts f = facts;
    return f != null && f.ready();
  }

  /** The pod's uid, once a read has shown it. */
  public Optional<String> podUid() {
    PodFacts f = facts;
    return f == null ? Optional.empty() : Optional.ofNullable(f.uid());
  }

  /** The answer now: a deadline that passed closes the gates before it is given. */
  public LeadershipView view() {
    synchronized (lock) {
      apply();
      return view;
    }
  }

  /** Waits until {@code leader} is no longer the answer, or {@code wait} is over; the view then. */
  public LeadershipView awaitLeaderOtherThan(boolean leader, Duration wait)
      throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    synchronized (lock) {
      apply();
      while (view.leader() == leader) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        TimeUnit.NANOSECONDS.timedWait(lock, left);
        apply();
      }
      return view;
    }
  }

  /** Tells {@code watcher} every new view (quickly: under the lock); returns how to stop. */
  public Runnable watch(Consumer<LeadershipView> watcher) {
    watchers.add(watcher);
    return () -> watchers.remove(watcher);
  }

  private void podSeen(PodFacts seen) {
    facts = seen;
    GateRule.Hold release = null;
    boolean again = false;
    synchronized (lock) {
      boolean certain = NotReadyCut.after(cut, seen, roleLabel);
      if (certain != cut) {
        cut = certain;
        again = !certain && !closing;
        if (certain) {
          // As on a demotion: every connection reset first (apply), the key let go only after.
          release = hold;
          hold = null;
        }
      }
      apply();
      refreshView();
    }
    if (release != null) {
      GateRule.Hold h = release;
      onKeyThread(() -> letGo(h));
    } else if (again) {
      onKeyThread(this::tick); // ready again: take the key at once if still confirmed
    }
  }

  private void onKeyThread(Runnable task) {
    if (gateKey != null) {
      try {
        keyThread.execute(task);
      } catch (RejectedExecutionException e) {
        // closed meanwhile
      }
    }
  }

  private void onGranted(long t) {
    synchronized (lock) {
      confirmed = true;
      term = t;
      apply();
    }
    onKeyThread(this::tick);
  }

  private void onRevoked(String reason) {
    GateRule.Hold release;
    synchronized (lock) {
      confirmed = false;
      apply(reason);
      release = hold;
      hold = null;
    }
    if (release != null) {
      onKeyThread(() -> letGo(release));
    }
  }

  /** A message on {@code baton:gates}: {@code changed} was taken or let go. */
  private void keyChanged(String changed) {
    String mine;
    synchronized (lock) {
      mine = groupKey();
    }
    if (changed.equals(mine)) {
      tick();
      readHolder();
    }
  }

  /** The gate key's work, on its own thread: take it while confirmed, renew it, let it go. */
  private void tick() {
    GateRule.Hold release = null;
    String key;
    GateRule.Hold current;
    boolean retake;
    long now = System.nanoTime();
    synchronized (lock) {
      key = confirmed && !closing && !cut ? groupKey() : null;
      if (hold != null && (key == null || !key.equals(hold.key()) || hold.term() != term)) {
        release = hold;
        hold = null;
        apply("no longer confirmed");
      }
      current = hold;
      retake = open && now - openUntilNanos < 0;
    }
    if (release != null) {
      letGo(release); // only once every connection is closed
      return;
    }
    if (key == null) {
      if (now - holderReadNanos > HOLDER_REFRESH_NANOS) {
        readHolder();
      }
      return;
    }
    if (current == null) {
      take(key);
    } else if (now - current.lastSentNanos() >= renewEveryNanos
        || (!current.proven() && now - current.openAfterNanos() >= 0)) {
      renew(current, retake);
    }
  }

  private void take(String key) {
    long t;
    synchronized (lock) {
      t = term;
    }
    // A fresh value for every attempt: a take whose answer was lost can never pass for this one.
    String value = GateKey.holdValue(namespace, pod, t);
    long sent = System.nanoTime();
    GateKey.Take taken;
    try {
      taken = gateKey.take(key, value);
    } catch (IllegalStateException e) {
      redisHealth.failed(System.nanoTime());
      log.debug("gate key {}: {}", key, e.getMessage());
      return;
    }
    long answered = System.nanoTime();
    redisHealth.answered(answered);
    if (taken == GateKey.Take.REFUSED) {
      return;
    }
    boolean proven = taken == GateKey.Take.NOW;
    if (!proven) {
      log.warn(
          "the gate key {} was absent from Redis (a restart without data, an eviction, a failover?):"
              + " a gate may still be open on it, so this one opens only after holding it for {} ms",
          key,
          TimeUnit.NANOSECONDS.toMillis(ttlNanos));
    }
    synchronized (lock) {
      GateRule.Hold h =
          new GateRule.Hold(
              key, value, t, proven, answered + ttlNanos, sent + ttlLessMarginNanos, sent);
      if (confirmed && !closing && !cut && term == t && hold == null) {
        hold = h;
        apply();
        return;
      }
    }
    letGo(new GateRule.Hold(key, value, t, false, 0, 0, sent)); // demoted meanwhile
  }

  /**
   * @param open whether the gate was open when this was decided: only then, and only if sent before
   *     the hold's deadline, may an absent key be taken again
   */
  private void renew(GateRule.Hold current, boolean open) {
    long sent = System.nanoTime();
    boolean retake = open && sent - current.untilNanos() < 0;
    GateKey.Renewal r;
    try {
      r = gateKey.renew(current.key(), current.value(), retake);
    } catch (IllegalStateException e) {
      redisHealth.failed(System.nanoTime());
      log.debug("gate key {}: {}", current.key(), e.getMessage());
      return; // the deadline closes the gate if this goes on
    }
    redisHealth.answered(System.nanoTime());
    if (r == GateKey.Renewal.RETAKEN) {
      log.warn(
          "the gate key {} was lost from Redis while this gate was open; taken again within its"
              + " deadline, connections kept",
          current.key());
    }
    synchronized (lock) {
      if (hold != current) {
        return; // let go meanwhile
      }
      if (r == GateKey.Renewal.EXTENDED || r == GateKey.Renewal.RETAKEN) {
        hold = current.renewed(sent, ttlLessMarginNanos);
      } else {
        hold = null;
        apply(
            r == GateKey.Renewal.LOST
                ? "the gate key was lost from Redis"
                : "the gate key is no longer this agent's");
      }
    }
  }

  /** Who leads by the gate key, for the answers of a follower's agent. */
  private void readHolder() {
    String key;
    synchronized (lock) {
      key = groupKey();
      holderReadNanos = System.nanoTime();
    }
    if (key == null) {
      return;
    }
    try {
      GateKey.Holder h = gateKey.holder(key);
      redisHealth.answered(System.nanoTime());
      redisHealth.memory(h.maxmemory(), h.policy());
      synchronized (lock) {
        if (!open) {
          refreshLeader(GateKey.podOf(h.value()), GateKey.termOf(h.value()));
        }
      }
    } catch (IllegalStateException e) {
      redisHealth.failed(System.nanoTime());
      log.debug("gate key {}: {}", key, e.getMessage());
    }
  }

  private void checkDeadline() {
    synchronized (lock) {
      apply();
    }
  }

  private void letGo(GateRule.Hold h) {
    try {
      gateKey.letGo(h.key(), h.value());
      redisHealth.answered(System.nanoTime());
    } catch (IllegalStateException e) {
      redisHealth.failed(System.nanoTime());
      log.warn(
          "could not let go of the gate key {} ({}); it runs out on its own",
          h.key(),
          e.getMessage());
    }
  }

  private String groupKey() {
    PodFacts f = facts;
    String group = f == null ? null : f.annotations().get(GROUP);
    if (group == null || group.isBlank()) {
      if (confirmed && !warnedNoGroup) {
        warnedNoGroup = true;
        log.warn("the pod is labeled leader but has no {} annotation: the gate stays shut", GROUP);
      }
      return null;
    }
    return GateKey.name(namespace, group);
  }

  private void apply() {
    apply(null);
  }

  /** Under the lock: opens, extends or closes the gates by the rule, as of now. */
  private void apply(String reason) {
    long now = System.nanoTime();
    long confirmedUntil = leadership == null ? now : leadership.confirmedUntilNanos();
    OptionalLong until =
        GateRule.openUntil(
            new GateRule.Facts(
                confirmed, term, confirmedUntil, cut, closing, gateKey != null, hold),
            now);
    if (until.isEmpty()) {
      closeAll(reason != null ? reason : why(now, confirmedUntil));
      return;
    }
    if (!open || until.getAsLong() != openUntilNanos) {
      openUntilNanos = until.getAsLong();
      for (Exclusive e : exclusives) {
        e.openUntil(openUntilNanos);
      }
    }
    if (!open) {
      open = true;
      log.info("leading with term {}: gates open", term);
      for (Exclusive e : exclusives) {
        e.opened(term);
      }
      refreshLeader(pod, term);
    }
  }

  private String why(long now, long confirmedUntil) {
    if (closing) {
      return "the agent is stopping";
    }
    if (cut) {
      return "the pod is not ready and its group fails over at once";
    }
    if (!confirmed) {
      return "no longer confirmed";
    }
    if (now - confirmedUntil >= 0) {
      return "leadership could not be confirmed before its deadline";
    }
    return "the gate key could not be renewed before its deadline";
  }

  private void closeAll(String reason) {
    if (!open) {
      return;
    }
    open = false;
    // In reverse: whoever was told first of the opening (an observer) hears last of the closing.
    List<Exclusive> all = List.copyOf(exclusives);
    for (int i = all.size() - 1; i >= 0; i--) {
      try {
        all.get(i).closed(reason);
      } catch (RuntimeException ex) {
        log.warn("closing failed", ex);
      }
    }
    log.info("no longer leading ({}): gates closed", reason);
    if (pod.equals(leaderPod)) {
      leaderPod = null;
      leaderTerm = null;
    }
    refreshView();
  }

  private void refreshLeader(String name, Long t) {
    leaderPod = name;
    leaderTerm = name == null ? null : t;
    refreshView();
  }

  private void refreshView() {
    PodFacts f = facts;
    Map<String, String> annotations = f == null ? Map.of() : f.annotations();
    LeadershipView v =
        new LeadershipView(
            open,
            open ? term : null,
            pod,
            annotations.get(GROUP),
            open ? annotations.get(SINCE) : null,
            leaderPod,
            leaderTerm);
    if (!v.equals(view)) {
      view = v;
      lock.notifyAll();
      for (Consumer<LeadershipView> w : watchers) {
        w.accept(v);
      }
    }
  }

  /** Closes the gates, gives the gate key up, and stops following the pod. */
  @Override
  public void close() {
    GateRule.Hold release;
    synchronized (lock) {
      closing = true;
      apply();
      release = hold;
      hold = null;
    }
    if (leadership != null) {
      leadership.close();
    }
    if (release != null) {
      try {
        keyThread.submit(() -> letGo(release)).get(2, TimeUnit.SECONDS);
      } catch (Exception e) {
        log.debug("letting go on close: {}", e.toString());
      }
    }
    if (gateKey != null) {
      gateKey.stopListening();
    }
    keyThread.shutdownNow();
    deadlineThread.shutdownNow();
  }

  private static ScheduledExecutorService daemon(String name) {
    return Executors.newSingleThreadScheduledExecutor(DaemonThreads.named(name));
  }
}
