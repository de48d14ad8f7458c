package dev.baton.agent.leadership;

import dev.baton.client.BatonNames;
import dev.baton.client.PodFacts;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The words of the agent's leadership decision ({@link GateDecision}): its configuration, its
 * state, the inputs its sources post and the effects it asks for (docs/design.md, "The agent:
 * leadership, locks and a gate for any container").
 */
final class GateMachine {

  private GateMachine() {}

  /**
   * @param ttlNanos confirmWithin: how long a hold counts, how long a taker watches a stale one
   * @param marginNanos how much earlier than a hold's ttl its gate closes (clock-rate slack)
   * @param nonce this process's own, so that its holds are never another's
   */
  record Config(
      String namespace,
      String pod,
      String roleLabel,
      long ttlNanos,
      long marginNanos,
      long renewEveryNanos,
      long takeEveryNanos,
      long holderEveryNanos,
      long redisFactsEveryNanos,
      boolean withKey,
      String nonce) {

    static Config of(
        String namespace,
        String pod,
        String roleLabel,
        Duration confirmWithin,
        boolean withKey,
        String nonce) {
      long ttl = confirmWithin.toNanos();
      return new Config(
          namespace,
          pod,
          roleLabel,
          ttl,
          Math.min(TimeUnit.MILLISECONDS.toNanos(100), ttl / 10),
          ttl / 4,
          TimeUnit.MILLISECONDS.toNanos(20),
          TimeUnit.SECONDS.toNanos(2),
          TimeUnit.SECONDS.toNanos(5),
          withKey,
          nonce);
    }
  }

  /** What a source tells the loop. */
  sealed interface Input permits Belief, PodSeen, Tick, KeyMessage, Closing, Answered, FactsRead {}

  /**
   * The pod's leadership as its pod source last confirmed it (labeled leader, confirmed by a read
   * sent before {@code confirmedUntilNanos} less the ttl), or that it no longer does.
   */
  record Belief(boolean leader, long term, long confirmedUntilNanos) implements Input {}

  /** The pod as a read or a watch event showed it, the newer of the two. */
  record PodSeen(PodFacts facts) implements Input {}

  /** The 10 ms timer: deadlines pass, calls come due. */
  record Tick() implements Input {}

  /** A message on {@code baton:gates}: {@code key} was taken, proven or let go. */
  record KeyMessage(String key) implements Input {}

  /** The agent stops: gates closed, the hold let go. */
  record Closing() implements Input {}

  /** A script's answer; {@code answer} null when Redis did not answer in time. */
  record Answered(Call call, long sentNanos, long answeredNanos, GateKey.Answer answer)
      implements Input {}

  /**
   * A read of the key's node's facts has ended; {@code facts} null when Redis did not answer. The
   * loop reports them; the rule only learns that the call is over.
   */
  record FactsRead(String key, long sentNanos, long answeredNanos, GateKey.RedisFacts facts)
      implements Input {}

  /** What the loop carries out. */
  sealed interface Effect permits Open, Close, Call, Log {}

  /** The gates open (or stay open) until {@code untilNanos}, with {@code term}. */
  record Open(long untilNanos, long term) implements Effect {}

  /** The gates close: every connection reset before the next effect runs. */
  record Close(String reason) implements Effect {}

  /**
   * A call to Redis, answered back as {@link Answered} ({@link FactsRead} for a read of facts): one
   * take, renewal or read of the holder at a time; let-goes and reads of facts beside them.
   */
  sealed interface Call extends Effect permits Take, Renew, LetGo, ReadHolder, ReadFacts {}

  /**
   * @param expected the value watched unchanged for a ttl, or "" (gate-take.lua)
   */
  record Take(String key, String hold, long term, String expected) implements Call {}

  /**
   * @param retakeAs the hold name an absent key is taken again under: fresh for every renewal, so
   *     that a re-take never writes a value some taker may have watched before; null: never
   * @param retakeBeforeNanos an absent key may be taken again only by a renewal sent before this
   *     (the gate's deadline, while it is open); {@link Long#MIN_VALUE}: never
   * @param prove this renewal proves a hold taken from an absent key
   */
  record Renew(GateRule.Hold hold, String retakeAs, long retakeBeforeNanos, boolean prove)
      implements Call {

    /**
     * Whether this renewal, sent at {@code sentNanos}, may take an absent key again: only before
     * the deadline the rule gave it. Checked where the call is sent, as a gate checks its own
     * deadline, since a call may wait in the queue past the moment the rule decided.
     */
    boolean mayRetakeIfSentAt(long sentNanos) {
      return retakeAs != null
          && retakeBeforeNanos != Long.MIN_VALUE
          && sentNanos - retakeBeforeNanos < 0;
    }
  }

  /** Marks a proven hold released: only ever after its gates closed. */
  record LetGo(GateRule.Hold hold) implements Call {}

  record ReadHolder(String key) implements Call {}

  record ReadFacts(String key) implements Call {}

  record Log(boolean warn, String message) implements Effect {}

  /** A value another agent's hold had when this agent first found it, and when that was. */
  record Watched(String key, String value, long sinceNanos) {}

  /**
   * What the agent knows. Times are {@link System#nanoTime()} values.
   *
   * @param newestTerm the highest term this pod was ever shown: nothing opens for a lower one
   * @param holdNames how many hold names this process has given out: the next one's number (a
   *     take's, or a re-take's that a renewal carries)
   * @param keyPresentOn the incarnation of Redis this agent last saw the group's key on
   */
  record State(
      boolean confirmed,
      long term,
      long confirmedUntil,
      long newestTerm,
      PodFacts facts,
      boolean cut,
      boolean closing,
      GateRule.Hold hold,
      boolean callPending,
      long lastTake,
      long lastHolderRead,
      long lastFactsRead,
      long holdNames,
      Watched watched,
      boolean open,
      long openUntil,
      String leaderPod,
      Long leaderTerm,
      String leaderIp,
      boolean warnedNoGroup,
      String keyPresentOn) {

    static State initial(long now) {
      long longAgo = now - TimeUnit.DAYS.toNanos(1);
      return new State(
          false, 0, now, 0, null, false, false, null, false, longAgo, longAgo, longAgo, 0, null,
          false, now, null, null, null, false, null);
    }

    /**
     * The same state with every time moved by {@code delta} and none before {@code floor}: the gate
     * model compares states as of now. Clamping is exact for the rule as long as {@code floor} is
     * further back than every interval the rule compares against.
     */
    State shifted(long delta, long floor) {
      return new State(
          confirmed,
          term,
          GateRule.shiftedTime(confirmedUntil, delta, floor),
          newestTerm,
          facts,
          cut,
          closing,
          hold == null ? null : hold.shifted(delta, floor),
          callPending,
          GateRule.shiftedTime(lastTake, delta, floor),
          GateRule.shiftedTime(lastHolderRead, delta, floor),
          GateRule.shiftedTime(lastFactsRead, delta, floor),
          holdNames,
          watched == null
              ? null
              : new Watched(
                  watched.key(),
                  watched.value(),
                  GateRule.shiftedTime(watched.sinceNanos(), delta, floor)),
          open,
          GateRule.shiftedTime(openUntil, delta, floor),
          leaderPod,
          leaderTerm,
          leaderIp,
          warnedNoGroup,
          keyPresentOn);
    }

    /** The group's key, from the pod's group annotation; null while unknown. */
    String groupKey(Config c) {
      String group = facts == null ? null : facts.annotations().get(BatonNames.GROUP_ANNOTATION);
      return group == null || group.isBlank() ? null : GateKey.name(c.namespace(), group);
    }

    /** The answer for HTTP and metrics. */
    LeadershipView view(Config c) {
      Map<String, String> a = facts == null ? Map.of() : facts.annotations();
      return new LeadershipView(
          open,
          open ? term : null,
          c.pod(),
          a.get(BatonNames.GROUP_ANNOTATION),
          open ? a.get(BatonNames.LEADER_SINCE_ANNOTATION) : null,
          leaderPod,
          leaderTerm,
          leaderIp);
    }
  }
}
