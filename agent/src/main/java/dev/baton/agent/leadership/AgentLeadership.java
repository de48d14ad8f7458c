package dev.baton.agent.leadership;

import dev.baton.client.BatonLeadership;
import dev.baton.client.DaemonThreads;
import dev.baton.client.KubernetesApi;
import dev.baton.client.LockValues;
import dev.baton.client.PodFacts;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this pod may serve as its group's leader: one loop that owns every fact it decides on and
 * applies one pure rule to them ({@link GateDecision}). Each source posts a value: the pod watch
 * and reads ({@code BatonLeadership}'s belief, the pod as last seen), the gate key's answers
 * ({@link KeyCalls}), the messages on {@code baton:gates}, and a 10 ms timer. The loop carries out
 * what the rule returns (the gates opened or closed through {@link GateSwitch}, the key's calls),
 * reports what Redis said of itself ({@link RedisHealth}), and publishes the answer the HTTP API
 * gives ({@link ViewBoard}).
 */
public final class AgentLeadership implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AgentLeadership.class);
  private static final long TICK_MILLIS = 10;

  private final String namespace;
  private final String pod;
  private final Duration confirmWithin;
  private final boolean withKey;
  private final GateSwitch gates = new GateSwitch();
  private final ScheduledExecutorService loop =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("baton-agent-leadership"));
  private final RedisHealth redisHealth;
  private final KeyCalls keyCalls; // null without Redis
  private final ViewBoard board;
  private volatile BatonLeadership leadership;
  private volatile PodFacts facts;
  private volatile LeadershipLoop steps;

  /**
   * @param redisson null: no gate key, the slower rule
   */
  public AgentLeadership(
      String namespace, String pod, Duration confirmWithin, RedissonClient redisson) {
    this.namespace = namespace;
    this.pod = pod;
    this.confirmWithin = confirmWithin;
    this.withKey = redisson != null;
    this.redisHealth = new RedisHealth(confirmWithin.toNanos());
    this.keyCalls = redisson == null ? null : new KeyCalls(new GateKey(redisson, confirmWithin));
    this.board =
        new ViewBoard(
            new LeadershipView(false, null, pod, null, null, null, null, null), System::nanoTime);
  }

  /**
   * Gates and the like, told on every open and close, on the loop; add them before {@link #start}.
   */
  public void add(Exclusive exclusive) {
    gates.add(exclusive);
  }

  /** Starts following the pod through {@code api}. */
  public void start(KubernetesApi api, BatonLeadership.Options options) {
    steps =
        new LeadershipLoop(
            GateMachine.Config.of(
                namespace, pod, options.roleLabel(), confirmWithin, withKey, LockValues.random()),
            gates,
            board,
            redisHealth,
            (call, from) -> keyCalls.send(call, this::post),
            System::nanoTime);
    BatonLeadership.Promotion promotion =
        withKey
            ? BatonLeadership.Promotion.AT_ONCE
            : BatonLeadership.Promotion.AFTER_CONFIRM_WITHIN;
    leadership =
        BatonLeadership.watchingPod(
            api,
            namespace,
            pod,
            options,
            promotion,
            seen -> {
              facts = seen;
              post(new GateMachine.PodSeen(seen));
            });
    leadership.follow(
        b -> post(new GateMachine.Belief(b.leader(), b.term(), b.confirmedUntilNanos())));
    loop.scheduleWithFixedDelay(
        () -> steps.feed(new GateMachine.Tick()), TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    if (keyCalls != null) {
      keyCalls.listen(key -> post(new GateMachine.KeyMessage(key)));
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

  private void post(GateMachine.Input input) {
    try {
      loop.execute(() -> steps.feed(input));
    } catch (RejectedExecutionException e) {
      // closed meanwhile
    }
  }

  /**
   * Closes the gates for good and gives the gate key up; the loop goes on reading who leads, for a
   * relay that carries connections to the next leader while the agent stops.
   */
  public void shut() {
    try {
      LeadershipLoop l = steps;
      if (l != null) {
        loop.submit(() -> l.feed(new GateMachine.Closing())).get(5, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      log.warn("closing the gates: {}", e.toString());
    }
  }

  /** Closes the gates, gives the gate key up, and stops following the pod. */
  @Override
  public void close() {
    shut();
    if (leadership != null) {
      leadership.close();
    }
    if (keyCalls != null) {
      keyCalls.close(); // the let-go queued above runs first
    }
    loop.shutdownNow();
  }
}
