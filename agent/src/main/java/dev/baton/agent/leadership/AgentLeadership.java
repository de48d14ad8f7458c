package dev.baton.agent.leadership;

import dev.baton.agent.redis.ScriptSocket;
import dev.baton.agent.threads.AgentThreads;
import dev.baton.client.BatonLeadership;
import dev.baton.client.KubernetesApi;
import dev.baton.client.LockValues;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.redisson.api.RedissonClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether this pod may serve as its group's leader: one loop that owns every fact it decides on and
 * applies one pure decision to them ({@link LeadershipDecision}). Each source posts a value: the
 * pod watch and reads ({@code BatonLeadership}'s belief, the pod as last seen), the hold key's
 * answers ({@link HoldCalls}), the messages on {@code baton:gates}, and a 10 ms timer. The loop
 * carries out what the decision returns (the gates opened or closed through {@link Exclusives}, the
 * key's calls), reports what Redis said of itself ({@link RedisHealth}), and publishes what the
 * HTTP API and the probes answer ({@link ViewBoard}): nothing here keeps a second copy of the pod.
 */
public final class AgentLeadership implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(AgentLeadership.class);
  private static final long TICK_MILLIS = 10;

  private final String namespace;
  private final String pod;
  private final Duration confirmWithin;
  private final Exclusives gates = new Exclusives();
  private final ScheduledExecutorService loop;
  private final ScheduledExecutorService callThread;
  private final RedisHealth redisHealth;
  private final HoldKey holdKey; // null without Redis
  private final ViewBoard board;
  private volatile BatonLeadership leadership;
  private volatile LeadershipLoop steps;

  /**
   * @param redisson null: no hold key, the slower rule
   * @param scripts the connection the hold key's scripts go on (one server), or null: through
   *     {@code redisson}
   */
  public AgentLeadership(
      String namespace,
      String pod,
      Duration confirmWithin,
      RedissonClient redisson,
      ScriptSocket scripts,
      AgentThreads threads) {
    this.namespace = namespace;
    this.pod = pod;
    this.confirmWithin = confirmWithin;
    this.loop = threads.single("baton-agent-leadership");
    this.callThread = redisson == null ? null : threads.single("baton-agent-hold-calls");
    this.redisHealth = new RedisHealth(confirmWithin.toNanos());
    this.holdKey = redisson == null ? null : new HoldKey(redisson, scripts, confirmWithin);
    this.board = new ViewBoard(AgentView.initial(pod), System::nanoTime);
  }

  /**
   * Gates and the like, told on every open and close, on the loop; add them before {@link #start}.
   */
  public void add(Exclusive exclusive) {
    gates.add(exclusive);
  }

  /** Starts following the pod through {@code api}. */
  public void start(KubernetesApi api, BatonLeadership.Options options) {
    HoldCalls calls = holdKey == null ? null : new HoldCalls(holdKey, callThread);
    LeadershipConfig config =
        LeadershipConfig.of(
            namespace,
            pod,
            options.roleLabel(),
            confirmWithin,
            holdKey != null,
            LockValues.random());
    // First on the loop, while the pod's first read is out: a promotion later finds its path run.
    loop.execute(() -> LeadershipRehearsal.play(config, LeadershipRehearsal.ROUNDS));
    steps =
        new LeadershipLoop(
            config,
            gates,
            board,
            redisHealth,
            (call, from) -> calls.send(call, this::post),
            System::nanoTime);
    BatonLeadership.Promotion promotion =
        holdKey != null
            ? BatonLeadership.Promotion.AT_ONCE
            : BatonLeadership.Promotion.AFTER_CONFIRM_WITHIN;
    leadership =
        BatonLeadership.watchingPod(
            api, namespace, pod, options, promotion, seen -> post(new Input.PodSeen(seen)));
    leadership.follow(b -> post(new Input.Belief(b.leader(), b.term(), b.confirmedUntilNanos())));
    loop.scheduleWithFixedDelay(
        () -> steps.feed(new Input.Tick()), TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    if (holdKey != null) {
      holdKey.listen(key -> post(new Input.KeyMessage(key)), callThread);
    }
  }

  /** Whether the first read of the pod has answered. */
  public boolean ready() {
    return board.agent().podRead();
  }

  /**
   * Why this agent should not count as ready although its pod was read: labeled leader, yet its
   * Redis has not answered for {@code confirmWithin}, so its gates cannot open. A readiness probe
   * on it makes the pod not ready, and the operator moves leadership to a pod whose gates can open.
   */
  public Optional<String> notReadyReason() {
    if (holdKey == null || !board.agent().labeledLeader()) {
      return Optional.empty();
    }
    return redisHealth
        .unreachableFor(System.nanoTime())
        .map(
            d ->
                "this pod is labeled leader but its gates cannot open: Redis has not answered for "
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
    return board.agent().podReady();
  }

  /** The pod's uid, once a read has shown it. */
  public Optional<String> podUid() {
    return Optional.ofNullable(board.agent().podUid());
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

  private void post(Input input) {
    LeadershipLoop l = steps;
    if (l != null) {
      loop.execute(() -> l.feed(input));
    }
  }

  /**
   * Closes the gates for good and gives the hold key up; the loop goes on reading who leads, for a
   * relay that carries connections to the next leader while the agent stops.
   */
  public void shut() {
    try {
      LeadershipLoop l = steps;
      if (l != null) {
        loop.submit(() -> l.feed(new Input.Closing())).get(5, TimeUnit.SECONDS);
      }
    } catch (Exception e) {
      log.warn("closing the gates: {}", e.toString());
    }
  }

  /**
   * Closes the gates, gives the hold key up, and stops following the pod. The threads are
   * AgentThreads' to stop; the let-go queued here is waited for (a little) first.
   */
  @Override
  public void close() {
    shut();
    if (leadership != null) {
      leadership.close();
    }
    if (holdKey != null) {
      try {
        callThread.submit(() -> {}).get(2, TimeUnit.SECONDS);
      } catch (Exception e) {
        log.debug("hold key calls still running at close: {}", e.toString());
      }
      holdKey.stopListening();
    }
    loop.shutdownNow();
    if (callThread != null) {
      callThread.shutdownNow();
    }
  }
}
