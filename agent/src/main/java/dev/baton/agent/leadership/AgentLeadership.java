package dev.baton.agent.leadership;

import dev.baton.client.BatonLeadership;
import dev.baton.client.BatonNames;
import dev.baton.client.DaemonThreads;
import dev.baton.client.KubernetesApi;
import dev.baton.client.LeadershipListener;
import dev.baton.client.PodFacts;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this pod may serve as its group's leader: one pure rule ({@link GateRule}) applied by one
 * loop. Every source of news posts to the loop, which alone holds the state, opens, extends and
 * closes the gates, and publishes the answer the HTTP API gives ({@link ViewBoard}): the pod's
 * watch and reads ({@code BatonLeadership}: labeled leader and confirmed by a fresh read; the pod
 * as last seen, for {@link NotReadyCut}), the gate key's answers from Redis ({@link KeyCalls}: a
 * proven hold, by this process's clock with a margin before it could run out), and a 10 ms timer,
 * so that a deadline passing closes the gates, and that the key's next call is made when due.
 * Without Redis a promotion counts only once it was seen for {@code confirmWithin}.
 */
public final class AgentLeadership implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AgentLeadership.class);
  private static final long TICK_MILLIS = 10;

  private final String namespace;
  private final String pod;
  private final GateSwitch gates = new GateSwitch();
  private final ScheduledExecutorService loop =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("baton-agent-leadership"));
  private final RedisHealth redisHealth;
  private final KeyCalls keyCalls; // null without Redis
  private final GateHold hold; // null without Redis
  private final ViewBoard board;
  private volatile BatonLeadership leadership;
  private volatile String roleLabel;
  private volatile PodFacts facts;

  // The loop's alone.
  private boolean confirmed;
  private boolean cut; // NotReadyCut applies to the pod as last seen
  private long term;
  private boolean closing;
  private boolean warnedNoGroup;
  private String leaderPod; // as the group's gate key names it, for followers
  private Long leaderTerm;

  /**
   * @param redisson null: no gate key, the slower rule
   */
  public AgentLeadership(
      String namespace, String pod, Duration confirmWithin, RedissonClient redisson) {
    this.namespace = namespace;
    this.pod = pod;
    this.redisHealth = new RedisHealth(confirmWithin.toNanos());
    this.keyCalls =
        redisson == null
            ? null
            : new KeyCalls(new GateKey(redisson, confirmWithin), redisHealth, this::post);
    this.hold =
        keyCalls == null
            ? null
            : new GateHold(keyCalls, namespace, pod, confirmWithin, this::tick, this::holderSeen);
    this.board = new ViewBoard(new LeadershipView(false, null, pod, null, null, null, null));
  }

  /**
   * Gates and the like, told on every open and close, on the loop; add them before {@link #start}.
   */
  public void add(Exclusive exclusive) {
    gates.add(exclusive);
  }

  /** Starts following the pod through {@code api}. */
  public void start(KubernetesApi api, BatonLeadership.Options options) {
    BatonLeadership.Promotion promotion =
        keyCalls == null
            ? BatonLeadership.Promotion.AFTER_CONFIRM_WITHIN
            : BatonLeadership.Promotion.AT_ONCE;
    roleLabel = options.roleLabel();
    leadership =
        BatonLeadership.watchingPod(
            api,
            namespace,
            pod,
            options,
            promotion,
            seen -> {
              facts = seen;
              post(() -> podSeen(seen));
            });
    leadership.addListener(
        new LeadershipListener() {
          @Override
          public void granted(long t) {
            post(() -> onGranted(t));
          }

          @Override
          public void revoked(String reason) {
            post(() -> onRevoked(reason));
          }
        });
    loop.scheduleWithFixedDelay(
        () -> safely(this::tick), TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    if (keyCalls != null) {
      keyCalls.listen(this::keyChanged);
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
    BatonLeadership l = leadership;
    if (keyCalls == null || l == null || !l.isLeader()) {
      return Optional.empty();
    }
    return redisHealth
        .unreachableFor(System.nanoTime())
        .map(
            d ->
                "this pod is labeled leader but its gate cannot open: Redis has not answered for "
                    + d.toMillis()
                    + " ms");
  }

  /** Whether the pod watch is open now, for /metrics. */
  public boolean podWatchOpen() {
    BatonLeadership l = leadership;
    return l != null && l.watching();
  }

  /** How many pod watches failed or were refused, for /metrics. */
  public long podWatchFailures() {
    BatonLeadership l = leadership;
    return l == null ? 0 : l.watchFailures();
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

  /** The answer now: never {@code leader: true} past the gates' deadline. */
  public LeadershipView view() {
    return board.now();
  }

  /** Waits until {@code leader} is no longer the answer, or {@code wait} is over; the view then. */
  public LeadershipView awaitLeaderOtherThan(boolean leader, Duration wait)
      throws InterruptedException {
    return board.awaitLeaderOtherThan(leader, wait);
  }

  /** Tells {@code watcher} every new view (quickly: on the loop); returns how to stop. */
  public Runnable watch(Consumer<LeadershipView> watcher) {
    return board.watch(watcher);
  }

  private void post(Runnable task) {
    try {
      loop.execute(() -> safely(task));
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  private static void safely(Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      log.error("the leadership loop failed a step; it goes on", e);
    }
  }

  private void podSeen(PodFacts seen) {
    boolean certain = NotReadyCut.after(cut, seen, roleLabel);
    boolean cutNow = certain && !cut;
    cut = certain;
    if (cutNow) {
      release("the pod is not ready and its group fails over at once");
    } else {
      apply(null);
    }
    keyWork(); // ready again: take the key at once if still confirmed
  }

  private void onGranted(long t) {
    confirmed = true;
    term = t;
    apply(null);
    if (hold != null) {
      hold.takeAtOnce();
    }
    keyWork();
  }

  private void onRevoked(String reason) {
    confirmed = false;
    release(reason);
  }

  /** A message on {@code baton:gates}: {@code changed} was taken or let go. */
  private void keyChanged(String changed) {
    if (changed.equals(groupKey())) {
      hold.takeAtOnce();
      keyWork();
      if (!confirmed) {
        hold.readHolder(changed);
      }
    }
  }

  private void tick() {
    apply(null);
    keyWork();
  }

  private void holderSeen(String holderPod, Long holderTerm) {
    if (!gates.isOpen()) {
      leaderPod = holderPod;
      leaderTerm = holderTerm;
      publish();
    }
  }

  /**
   * Drops the hold, closes the gates (no hold, no open gate) and only then lets the hold go: a
   * successor may open as soon as it is released.
   */
  private void release(String reason) {
    GateRule.Hold h = hold == null ? null : hold.drop();
    apply(reason);
    if (h != null) {
      hold.letGo(h);
    }
  }

  /** The gate key's next call, once a hold the pod may no longer keep was let go. */
  private void keyWork() {
    if (hold == null) {
      return;
    }
    String key = confirmed && !closing && !cut ? groupKey() : null;
    GateRule.Hold h = hold.current();
    if (h != null && (key == null || !key.equals(h.key()) || h.term() != term)) {
      release("no longer confirmed");
    }
    hold.work(key, groupKey(), term, gates.isOpen());
  }

  private String groupKey() {
    PodFacts f = facts;
    String group = f == null ? null : f.annotations().get(BatonNames.GROUP_ANNOTATION);
    if (group == null || group.isBlank()) {
      if (confirmed && !warnedNoGroup) {
        warnedNoGroup = true;
        log.warn(
            "the pod is labeled leader but has no {} annotation: the gate stays shut",
            BatonNames.GROUP_ANNOTATION);
      }
      return null;
    }
    return GateKey.name(namespace, group);
  }

  /** Opens, extends or closes the gates by the rule, as of now, and publishes the answer. */
  private void apply(String reason) {
    long now = System.nanoTime();
    long confirmedUntil = leadership == null ? now : leadership.confirmedUntilNanos();
    OptionalLong until =
        GateRule.openUntil(
            new GateRule.Facts(
                confirmed,
                term,
                confirmedUntil,
                cut,
                closing,
                hold != null,
                hold == null ? null : hold.current()),
            now);
    if (until.isEmpty()) {
      if (gates.close(reason != null ? reason : why(now, confirmedUntil))
          && pod.equals(leaderPod)) {
        leaderPod = null;
        leaderTerm = null;
      }
    } else if (gates.openUntil(until.getAsLong(), term)) {
      leaderPod = pod;
      leaderTerm = term;
    }
    publish();
  }

  private String why(long now, long confirmedUntil) {
    if (closing) {
      return "the agent is stopping";
    }
    if (!confirmed) {
      return "no longer confirmed";
    }
    if (now - confirmedUntil >= 0) {
      return "leadership could not be confirmed before its deadline";
    }
    if (hold != null && hold.current() == null) {
      return "the gate key is not this agent's";
    }
    return "the gate key could not be renewed before its deadline";
  }

  private void publish() {
    PodFacts f = facts;
    Map<String, String> annotations = f == null ? Map.of() : f.annotations();
    boolean open = gates.isOpen();
    board.publish(
        new LeadershipView(
            open,
            open ? term : null,
            pod,
            annotations.get(BatonNames.GROUP_ANNOTATION),
            open ? annotations.get(BatonNames.LEADER_SINCE_ANNOTATION) : null,
            leaderPod,
            leaderTerm),
        gates.openUntilNanos());
  }

  /** Closes the gates, gives the gate key up, and stops following the pod. */
  @Override
  public void close() {
    try {
      loop.submit(
              () -> {
                closing = true;
                release("the agent is stopping");
              })
          .get(5, TimeUnit.SECONDS);
    } catch (Exception e) {
      log.warn("closing the gates: {}", e.toString());
    }
    if (leadership != null) {
      leadership.close();
    }
    if (keyCalls != null) {
      keyCalls.close(); // the let-go queued above runs first
    }
    loop.shutdownNow();
  }
}
