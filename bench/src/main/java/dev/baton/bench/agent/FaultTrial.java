package dev.baton.bench.agent;

import dev.baton.bench.Waits;
import dev.baton.testkit.Sandbox;
import dev.baton.testkit.StampedWriter;
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
    REDIS_CUT_OFF(
        "Redis unreachable from the leader's agent alone; the pod set not ready once its /readyz"
            + " says 503",
        "confirmWithin (2 s) since Redis last answered, and a call failed, before /readyz says"
            + " 503; a kubelet adds up to its probe period (2 s in the examples)");

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
      return this == REDIS_CUT_OFF;
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

  FaultTrial(Sandbox cluster, AgentFleet fleet, Fault fault) {
    this.cluster = cluster;
    this.fleet = fleet;
    this.fault = fault;
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
