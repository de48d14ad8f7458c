package dev.baton.agent.leadership;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This agent's hold of its group's gate key, and when its next call to Redis is due: a take while
 * the pod may lead and holds nothing (polled every 20 ms, at once on a let-go's message), a renewal
 * every quarter of {@code confirmWithin} and once a hold taken from an absent key has been held a
 * whole ttl, a read of the holder for a follower's answers. One call at a time. Used on the
 * leadership loop alone; what a hold means for the gates is {@link GateRule}'s to say.
 */
final class GateHold {

  private static final Logger log = LoggerFactory.getLogger(GateHold.class);
  private static final long TAKE_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
  private static final long HOLDER_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(2);

  private final KeyCalls calls;
  private final String namespace;
  private final String pod;
  private final long ttlNanos;
  private final long renewEveryNanos;
  private final long ttlLessMarginNanos;
  private final Runnable changed;
  private final BiConsumer<String, Long> holderSeen;
  private GateRule.Hold hold;
  private boolean callPending;
  private long lastTakeNanos;
  private long holderReadNanos;

  /**
   * @param changed told when the hold was taken, proven, extended or lost
   * @param holderSeen told the pod and term the key's live hold names (nulls: none)
   */
  GateHold(
      KeyCalls calls,
      String namespace,
      String pod,
      Duration confirmWithin,
      Runnable changed,
      BiConsumer<String, Long> holderSeen) {
    this.calls = calls;
    this.namespace = namespace;
    this.pod = pod;
    this.ttlNanos = confirmWithin.toNanos();
    this.renewEveryNanos = ttlNanos / 4;
    long margin = Math.min(TimeUnit.MILLISECONDS.toNanos(100), ttlNanos / 10);
    this.ttlLessMarginNanos = ttlNanos - margin;
    this.changed = changed;
    this.holderSeen = holderSeen;
  }

  GateRule.Hold current() {
    return hold;
  }

  /** Forgets the hold and returns it, for the caller to {@link #letGo} once the gates closed. */
  GateRule.Hold drop() {
    GateRule.Hold h = hold;
    hold = null;
    return h;
  }

  /**
   * Marks {@code h} released, if it is proven. An unproven hold (taken from an absent key, not yet
   * held a whole ttl) is left to run out instead: a release mark would let the next taker open at
   * once, while a holder whose key was lost may still be open; a hold that runs out was held a
   * whole ttl since the key was found absent, as long as a proof waits.
   */
  void letGo(GateRule.Hold h) {
    if (h.proven()) {
      calls.letGo(h);
    } else {
      log.info(
          "the gate key {} was taken while absent and is not proven: left to run out", h.key());
    }
  }

  /** The next take goes at once, not at the next 20 ms poll: the key may be free now. */
  void takeAtOnce() {
    lastTakeNanos = System.nanoTime() - TAKE_EVERY_NANOS;
  }

  /**
   * Makes the call that is due, if any.
   *
   * @param key the group's key while this pod may hold it (confirmed leader, not cut), else null
   * @param groupKey the group's key, for a follower's read of the holder; null when unknown
   * @param open whether the gates are open: only then may a renewal re-take a lost key
   */
  void work(String key, String groupKey, long term, boolean open) {
    if (callPending) {
      return;
    }
    long now = System.nanoTime();
    if (key == null) {
      if (groupKey != null && now - holderReadNanos > HOLDER_REFRESH_NANOS) {
        readHolder(groupKey);
      }
    } else if (hold == null) {
      if (now - lastTakeNanos >= TAKE_EVERY_NANOS) {
        lastTakeNanos = now;
        callPending = true;
        // A fresh value for every attempt: a take whose answer was lost never passes for this one.
        calls.take(key, GateKey.holdValue(namespace, pod, term), term, this::taken);
      }
    } else if (now - hold.lastSentNanos() >= renewEveryNanos
        || (!hold.proven() && now - hold.openAfterNanos() >= 0)) {
      callPending = true;
      calls.renew(hold, open, this::renewed);
    }
  }

  /** Who leads by the gate key, for the answers of a follower's agent. */
  void readHolder(String groupKey) {
    holderReadNanos = System.nanoTime();
    if (callPending) {
      return;
    }
    callPending = true;
    calls.readHolder(
        groupKey,
        h -> {
          callPending = false;
          if (h != null) {
            String p = GateKey.podOf(h.value());
            holderSeen.accept(p, p == null ? null : GateKey.termOf(h.value()));
          }
        });
  }

  private void taken(KeyCalls.Taken t) {
    callPending = false;
    if (t.result() == null || t.result() == GateKey.Take.REFUSED) {
      return;
    }
    boolean proven = t.result() == GateKey.Take.NOW;
    if (!proven) {
      log.warn(
          "the gate key {} was absent from Redis (a restart without data, an eviction, a failover?):"
              + " a gate may still be open on it, so this one opens only after holding it for {} ms",
          t.key(),
          TimeUnit.NANOSECONDS.toMillis(ttlNanos));
    }
    hold =
        new GateRule.Hold(
            t.key(),
            t.value(),
            t.term(),
            proven,
            t.answeredNanos() + ttlNanos,
            t.sentNanos() + ttlLessMarginNanos,
            t.sentNanos());
    changed.run(); // the loop lets it go at once if the pod was demoted meanwhile
  }

  private void renewed(KeyCalls.Renewed r) {
    callPending = false;
    if (hold != r.hold() || r.result() == null) {
      return; // let go meanwhile, or no answer: the deadline closes the gates if this goes on
    }
    if (r.result() == GateKey.Renewal.EXTENDED || r.result() == GateKey.Renewal.RETAKEN) {
      hold = hold.renewed(r.sentNanos(), ttlLessMarginNanos);
    } else {
      log.info(
          r.result() == GateKey.Renewal.LOST
              ? "the gate key {} was lost from Redis"
              : "the gate key {} is no longer this agent's",
          r.hold().key());
      hold = null;
    }
    changed.run();
  }
}
