package dev.baton.agent.leadership;

import dev.baton.client.BatonLeadership;
import dev.baton.client.DaemonThreads;
import dev.baton.client.KubernetesApi;
import dev.baton.client.LeadershipListener;
import dev.baton.client.LockValues;
import dev.baton.client.PodFacts;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this pod may serve as its group's leader, by one rule for the gates and the HTTP view:
 * its pod is labeled leader and confirmed by a fresh read ({@link BatonLeadership}), and, with
 * Redis, this agent holds the group's gate key, by its own clock with a margin before the key could
 * expire. Without Redis a promotion counts only once it was seen for {@code confirmWithin}. Neither
 * while the pod, as last seen, is one the operator is certain to demote ({@link NotReadyCut}).
 */
public final class AgentLeadership implements AutoCloseable {

  public static final String GROUP = "baton.dev/leader-group";
  public static final String SINCE = "baton.dev/leader-since";

  private static final Logger log = LoggerFactory.getLogger(AgentLeadership.class);
  private static final long TICK_MILLIS = 20;

  private final String namespace;
  private final String pod;
  private final GateKey gateKey;
  private final String value;
  private final long ttlNanos;
  private final long renewEveryNanos;
  private final long marginNanos;
  private final List<Exclusive> exclusives = new CopyOnWriteArrayList<>();
  private final List<Consumer<LeadershipView>> watchers = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService keyThread = daemon("baton-agent-gate-key");
  private final ScheduledExecutorService deadlineThread = daemon("baton-agent-gate-deadline");
  private final Object lock = new Object();
  private BatonLeadership leadership;
  private volatile String roleLabel;
  private volatile PodFacts facts;

  // Guarded by lock.
  private boolean confirmed;
  private boolean cut; // NotReadyCut applies to the pod as last seen
  private long term;
  private boolean open;
  private String heldKey;
  private long lastRenewNanos;
  private long heldUntilNanos;
  private boolean closing;
  private boolean warnedNoGroup;
  private LeadershipView view;

  /**
   * @param redisson null: no gate key, the slower rule
   */
  public AgentLeadership(
      String namespace, String pod, Duration confirmWithin, RedissonClient redisson) {
    this.namespace = namespace;
    this.pod = pod;
    this.gateKey = redisson == null ? null : new GateKey(redisson, confirmWithin);
    this.value = "agent:" + namespace + "/" + pod + ":" + LockValues.random();
    this.ttlNanos = confirmWithin.toNanos();
    this.renewEveryNanos = confirmWithin.toNanos() / 4;
    this.marginNanos = Math.min(TimeUnit.MILLISECONDS.toNanos(100), confirmWithin.toNanos() / 10);
    this.view = new LeadershipView(false, null, pod, null, null);
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
      gateKey.listen(() -> onKeyThread(this::tick), keyThread);
    }
  }

  /** Whether the first read of the pod has answered. */
  public boolean ready() {
    return facts != null;
  }

  /** Whether the pod, as last seen, is ready as the operator counts it. */
  public boolean podReady() {
    PodFacts f = facts;
    return f != null && f.ready();
  }

  /** The pod's uid, once a read has shown it. */
  public java.util.Optional<String> podUid() {
    PodFacts f = facts;
    return f == null ? java.util.Optional.empty() : java.util.Optional.ofNullable(f.uid());
  }

  public LeadershipView view() {
    synchronized (lock) {
      return view;
    }
  }

  /** Waits until {@code leader} is no longer the answer, or {@code wait} is over; the view then. */
  public LeadershipView awaitLeaderOtherThan(boolean leader, Duration wait)
      throws InterruptedException {
    long deadline = System.nanoTime() + wait.toNanos();
    synchronized (lock) {
      while (view.leader() == leader) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        TimeUnit.NANOSECONDS.timedWait(lock, left);
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
    String release = null;
    boolean again = false;
    synchronized (lock) {
      boolean certain = NotReadyCut.after(cut, seen, roleLabel);
      if (certain != cut) {
        cut = certain;
        again = !certain && !closing;
        if (certain) {
          // As on a demotion: every connection reset first, the key let go only after.
          closeAll("the pod is not ready and its group fails over at once");
          release = heldKey;
          heldKey = null;
        } else if (confirmed && !closing && gateKey == null) {
          openAll();
        }
      }
      refreshView();
    }
    if (release != null) {
      String key = release;
      onKeyThread(() -> letGo(key));
    } else if (again) {
      onKeyThread(this::tick); // ready again: take the key at once if still confirmed
    }
  }

  private void onKeyThread(Runnable task) {
    if (gateKey != null) {
      try {
        keyThread.execute(task);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // closed meanwhile
      }
    }
  }

  private void onGranted(long t) {
    synchronized (lock) {
      confirmed = true;
      term = t;
      if (gateKey == null && !cut) {
        openAll();
      }
    }
    if (gateKey != null) {
      keyThread.execute(this::tick);
    }
  }

  private void onRevoked(String reason) {
    String toRelease;
    synchronized (lock) {
      confirmed = false;
      closeAll(reason);
      toRelease = heldKey;
      heldKey = null;
    }
    if (toRelease != null) {
      keyThread.execute(() -> letGo(toRelease));
    }
  }

  /** The gate key's work, on its own thread: take it while confirmed, renew it, let it go. */
  private void tick() {
    String key;
    boolean renew;
    long now = System.nanoTime();
    String release = null;
    synchronized (lock) {
      if (heldKey != null && (!confirmed || closing || cut)) {
        release = heldKey;
        heldKey = null;
        closeAll("no longer confirmed");
      }
    }
    if (release != null) {
      letGo(release); // only once every connection is closed
      return;
    }
    synchronized (lock) {
      if (!confirmed || closing || cut) {
        return;
      }
      key = groupKey();
      if (key == null) {
        return;
      }
      renew = key.equals(heldKey);
      if (renew && now - lastRenewNanos < renewEveryNanos) {
        return;
      }
    }
    boolean ok;
    try {
      ok = renew ? gateKey.renew(key, value) : gateKey.take(key, value);
    } catch (IllegalStateException e) {
      log.debug("gate key {}: {}", key, e.getMessage());
      return; // the deadline closes the gate if this goes on
    }
    synchronized (lock) {
      if (!ok) {
        if (renew) {
          closeAll("the gate key is no longer this agent's");
          heldKey = null;
        }
        return;
      }
      heldKey = key;
      lastRenewNanos = now;
      heldUntilNanos = now + ttlNanos - marginNanos;
      if (confirmed && !closing && !cut && !open && System.nanoTime() - heldUntilNanos < 0) {
        openAll();
      }
    }
  }

  private void checkDeadline() {
    synchronized (lock) {
      if (open && gateKey != null && System.nanoTime() - heldUntilNanos >= 0) {
        closeAll("the gate key could not be renewed before it could expire");
        heldKey = null;
      }
    }
  }

  private void letGo(String key) {
    try {
      gateKey.letGo(key, value);
    } catch (IllegalStateException e) {
      log.warn(
          "could not let go of the gate key {} ({}); it expires on its own", key, e.getMessage());
    }
  }

  private String groupKey() {
    PodFacts f = facts;
    String group = f == null ? null : f.annotations().get(GROUP);
    if (group == null || group.isBlank()) {
      if (!warnedNoGroup) {
        warnedNoGroup = true;
        log.warn("the pod is labeled leader but has no {} annotation: the gate stays shut", GROUP);
      }
      return null;
    }
    return GateKey.name(namespace, group);
  }

  private void openAll() {
    if (open) {
      return;
    }
    open = true;
    log.info("leading with term {}: gates open", term);
    for (Exclusive e : exclusives) {
      e.opened(term);
    }
    refreshView();
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
            open ? annotations.get(SINCE) : null);
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
    synchronized (lock) {
      closing = true;
    }
    if (leadership != null) {
      leadership.close(); // revokes: gates closed, the key's release queued
    }
    synchronized (lock) {
      closeAll("the agent is stopping");
    }
    try {
      keyThread.submit(this::tick).get(2, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.debug("letting go on close: {}", e.toString());
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
