package dev.baton.bench.agent;

import dev.baton.bench.harness.Waits;
import dev.baton.testkit.LocalRedis;
import dev.baton.testkit.Sandbox;
import dev.baton.testkit.StampedWriter;
import dev.baton.testkit.SteppedClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One hand-over under a fault, injected as the agent's GateFaultsIT injects it against the shipped
 * jar, with a pool of writers on the old leader's gate; from a steady leader back to a steady
 * group. Leadership moves by turning the old leader not ready, as there.
 */
final class FaultTrial {

  /** The pooled connections on the old leader's gate, spread over its event loops. */
  static final int WRITERS = 8;

  /** How long the pool goes on writing once the new gate opened: a gate relaying late shows. */
  private static final Duration WRITING_ON = Duration.ofMillis(500);

  static final String GATE_KEY = "baton:{gate:" + Sandbox.NS + "/" + AgentBench.GROUP + "}";

  enum Fault {
    KEY_DELETED(
        "gate key deleted (DEL) once the operator moved leadership, the old agent's API reads"
            + " hanging",
        "confirmWithin (2 s): the old agent's gate shuts at most that long after its last"
            + " confirmation from the API; a take of an absent key holds it that long before its"
            + " gate opens"),
    REDIS_RESTARTED_EMPTY(
        "Redis restarted empty once the operator moved leadership, the old agent's API reads"
            + " hanging",
        "confirmWithin (2 s), as above"),
    OLD_AGENT_FROZEN(
        "old agent SIGSTOPped, leadership moved, the new gate open, then SIGCONT",
        "confirmWithin (2 s): the frozen agent's hold runs out at most that long after its last"
            + " renewal"),
    REDIS_FROM_SNAPSHOT(
        "Redis crashed and back from an RDB saved 4 s earlier, once the operator moved"
            + " leadership, the old agent's API reads hanging",
        "confirmWithin (2 s): a value another incarnation of Redis wrote counts as absent; a"
            + " take of it holds it that long before its gate opens"),
    CLOCK_STEPPED(
        "Redis's wall clock stepped 2.5 s forward once the operator moved leadership, the old"
            + " agent's API reads hanging",
        "none: no gate script decides by Redis's clock"),
    REDIS_CUT_OFF(
        "Redis unreachable from the leader's agent alone; the pod set not ready once its /readyz"
            + " says 503",
        "confirmWithin (2 s) since Redis last answered, and a call failed, before /readyz says"
            + " 503; a kubelet adds up to its probe period (2 s in the examples)"),
    REPLICA_PROMOTED(
        "a replica that stopped following 3 s earlier promoted and the agents' connections moved"
            + " to it, once the operator moved leadership, the old agent's API reads hanging",
        "confirmWithin (2 s), as for a snapshot: the promoted replica is another incarnation");

    final String description;
    final String anchor;

    Fault(String description, String anchor) {
      this.description = description;
      this.anchor = anchor;
    }

    /**
     * Whether the agents must reach Redis through proxies of their own. Only where the fault needs
     * it: a proxy accepts a connection while Redis restarts and leaves it hanging, which would
     * stall the agents across a restart for the proxy's sake, not theirs.
     */
    boolean redisBehindProxies() {
      return this == REDIS_CUT_OFF || this == REPLICA_PROMOTED;
    }
  }

  /**
   * What one trial measured: the stamped frames that reached the demoted pod's application after
   * another pod's application was first reached (must be 0), the pool's connections cut, and the
   * new gate's first echo from the fault's injection and from the API call that moved leadership.
   */
  record Outcome(long lateFrames, int writersCut, double fromFaultMillis, double fromApiMillis) {
    @Override
    public String toString() {
      return String.format(
          "late frames %d, cut %d of %d, open %.1f ms after the fault, %.1f ms after the API call",
          lateFrames, writersCut, WRITERS, fromFaultMillis, fromApiMillis);
    }
  }

  private final Sandbox cluster;
  private final AgentFleet fleet;
  private final Fault fault;
  private final SteppedClock clock;
  private LocalRedis replica;

  /**
   * @param clock the sandbox Redis's wall clock, which the clock fault steps
   */
  FaultTrial(Sandbox cluster, AgentFleet fleet, Fault fault, SteppedClock clock) {
    this.cluster = cluster;
    this.fleet = fleet;
    this.fault = fault;
    this.clock = clock;
  }

  /** When the fault was injected, the API call moved leadership, and the new gate first echoed. */
  private record Instants(long fault, long apiCall, long opened) {}

  Outcome run() throws Exception {
    String old = fleet.awaitOpenLeader();
    List<StampedWriter> pool = new ArrayList<>();
    long lateBefore = fleet.bytes().lateFrames();
    Instants at;
    int cut;
    try {
      for (int i = 0; i < WRITERS; i++) {
        pool.add(fleet.writerThrough(old));
      }
      at =
          switch (fault) {
            case KEY_DELETED, REDIS_RESTARTED_EMPTY -> loseTheKeyMidHandOver(old);
            case OLD_AGENT_FROZEN -> freezeTheOldAgent(old);
            case REDIS_CUT_OFF -> cutRedisOff(old);
            case REDIS_FROM_SNAPSHOT, CLOCK_STEPPED, REPLICA_PROMOTED -> redisFaultMidHandOver(old);
          };
      Waits.until(
          () -> pool.stream().allMatch(StampedWriter::broken),
          Duration.ofSeconds(5),
          Duration.ofMillis(10));
      cut = (int) pool.stream().filter(StampedWriter::broken).count();
    } finally {
      pool.forEach(StampedWriter::close);
    }
    long late = fleet.bytes().lateFrames() - lateBefore;
    restore(old);
    return new Outcome(
        late,
        cut,
        AgentBench.millisSince(at.fault(), at.opened()),
        AgentBench.millisSince(at.apiCall(), at.opened()));
  }

  /** The key lost (deleted, or Redis restarted empty) just after the operator moved leadership. */
  private Instants loseTheKeyMidHandOver(String old) {
    fleet.apiProxy(old).pause(); // the old agent sees no demotion, and confirms nothing
    long apiCall = System.nanoTime();
    cluster.setReady(old, false);
    awaitLeaderOtherThan(old);
    long injected = System.nanoTime();
    if (fault == Fault.KEY_DELETED) {
      cluster.redis.command("DEL", GATE_KEY);
    } else {
      cluster.redis.restart(false);
    }
    long opened = awaitNewGate(old);
    Waits.sleep(WRITING_ON);
    return new Instants(injected, apiCall, opened);
  }

  /**
   * A Redis that brings back older values (a snapshot, a promoted replica), or whose clock steps,
   * just after the operator moved leadership while the old agent's API reads hang.
   */
  private Instants redisFaultMidHandOver(String old) {
    if (fault == Fault.REDIS_FROM_SNAPSHOT) {
      cluster.redis.command("SAVE");
      Waits.sleep(Duration.ofSeconds(4)); // the leader renews meanwhile: the snapshot is older
    } else if (fault == Fault.REPLICA_PROMOTED) {
      replica =
          LocalRedis.start("--replicaof", "127.0.0.1", Integer.toString(cluster.redis.port()));
      AgentBench.await(
          () -> replica.command("INFO", "replication").contains("master_link_status:up"),
          Duration.ofSeconds(20),
          "the replica in sync");
      Waits.sleep(Duration.ofSeconds(1));
      replica.command("REPLICAOF", "NO", "ONE");
      Waits.sleep(Duration.ofSeconds(3)); // it holds the key as it was 3 s before it is used
    }
    fleet.apiProxy(old).pause();
    long apiCall = System.nanoTime();
    cluster.setReady(old, false);
    awaitLeaderOtherThan(old);
    long injected = System.nanoTime();
    switch (fault) {
      case REDIS_FROM_SNAPSHOT -> cluster.redis.crashAndRestoreLastSnapshot();
      case CLOCK_STEPPED -> clock.step(2500);
      default -> fleet.redisProxies().forEach(p -> p.retarget("127.0.0.1", replica.port()));
    }
    long opened = awaitNewGate(old);
    Waits.sleep(WRITING_ON);
    return new Instants(injected, apiCall, opened);
  }

  /**
   * The old agent frozen before leadership moves, thawed once the new gate has forwarded a while.
   */
  private Instants freezeTheOldAgent(String old) {
    long injected = System.nanoTime();
    fleet.freeze(old);
    long apiCall;
    long opened;
    try {
      apiCall = System.nanoTime();
      cluster.setReady(old, false);
      opened = awaitNewGate(old);
      // The pool goes on writing into the frozen gate's sockets: on SIGCONT they must be cut, not
      // relayed.
      Waits.sleep(WRITING_ON);
    } finally {
      fleet.thaw(old);
    }
    AgentBench.await(
        () -> fleet.answersNotLeader(old),
        Duration.ofSeconds(10),
        "the thawed agent of " + old + " answering, not leader");
    return new Instants(injected, apiCall, opened);
  }

  /** Redis silent for the leader's agent alone; the pod turned not ready as a kubelet would. */
  private Instants cutRedisOff(String old) {
    long injected = System.nanoTime();
    fleet.redisProxy(old).pause();
    // The kubelet's part: once the agent's readiness probe fails, the pod is not ready.
    AgentBench.await(
        () -> fleet.notReadyForRedis(old),
        AgentBench.CONFIRM_WITHIN.plusSeconds(5),
        "the agent of " + old + " not ready for want of Redis");
    long apiCall = System.nanoTime();
    cluster.setReady(old, false);
    long opened = awaitNewGate(old);
    Waits.sleep(WRITING_ON);
    return new Instants(injected, apiCall, opened);
  }

  private void awaitLeaderOtherThan(String old) {
    AgentBench.await(
        () -> {
          List<String> l = cluster.leaders(AgentBench.ROLE);
          return l.size() == 1 && !l.contains(old);
        },
        Duration.ofSeconds(20),
        "a leader other than " + old);
  }

  private long awaitNewGate(String old) {
    long opened = fleet.awaitGateOtherThan(old, Duration.ofSeconds(20));
    if (opened < 0) {
      throw new IllegalStateException("no other gate opened within 20 s: " + fault.description);
    }
    return opened;
  }

  private void restore(String old) {
    if (fault == Fault.CLOCK_STEPPED) {
      clock.step(-2500);
    }
    if (replica != null) {
      fleet.redisProxies().forEach(p -> p.retarget("127.0.0.1", cluster.redis.port()));
      replica.close();
    }
    if (fleet.apiProxy(old) != null) {
      fleet.apiProxy(old).resume();
    }
    if (fleet.redisProxy(old) != null) {
      fleet.redisProxy(old).resume();
    }
    cluster.setReady(old, true);
    AgentBench.await(
        () -> "follower".equals(cluster.roles(AgentBench.ROLE).get(old)) && fleet.ready(old),
        Duration.ofSeconds(20),
        old + " back as a follower");
  }
}
