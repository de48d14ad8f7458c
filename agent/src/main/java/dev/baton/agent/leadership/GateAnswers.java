package dev.baton.agent.leadership;

import java.util.concurrent.TimeUnit;

/**
 * What the gate key's answers mean, applied to one step of the decision (its working state and
 * effects, a {@link GateRun}): a take that makes a hold or adds to the watch of another's, a
 * renewal that extends or loses the hold, a read of who holds the key.
 */
final class GateAnswers {

  private final GateRun r;

  GateAnswers(GateRun r) {
    this.r = r;
  }

  void answered(GateMachine.Answered a) {
    GateMachine.Call call = a.call();
    GateKey.Answer x = a.answer();
    if (call instanceof GateMachine.LetGo l) {
      if (x == null) {
        r.log(true, "could not let go of the gate key " + l.hold().key() + "; it goes stale");
      }
      return; // let-goes are queued beside the one call in flight
    }
    r.callPending = false;
    if (x != null
        && GateValue.parse(x.found()) != null
        && x.incarnation().equals(GateValue.parse(x.found()).incarnation())) {
      r.keyPresentOn = x.incarnation();
    }
    if (call instanceof GateMachine.Take t) {
      taken(t, a);
    } else if (call instanceof GateMachine.Renew n) {
      renewed(n, a);
    } else if (call instanceof GateMachine.ReadHolder h) {
      holderRead(x);
      watch(h.key(), x, a.answeredNanos());
    }
    r.apply(null);
    r.keyWork(); // lets a hold go at once if the pod was demoted while the call ran
  }

  private void taken(GateMachine.Take t, GateMachine.Answered a) {
    GateKey.Answer x = a.answer();
    if (x == null) {
      return;
    }
    switch (x.code()) {
      case 1 -> took(t, a, true);
      case 2 -> {
        absent(t.key(), x); // before took(): it compares with the incarnation seen before
        took(t, a, false);
      }
      case 3 -> {
        GateValue v = GateValue.parse(x.found());
        if (r.watched == null || !x.found().equals(r.watched.value())) {
          r.log(
              true,
              "the gate key "
                  + t.key()
                  + " records term "
                  + (v == null ? "?" : v.term())
                  + ", newer than this pod's "
                  + t.term()
                  + ": this gate stays shut");
          r.watched = new GateMachine.Watched(t.key(), x.found(), a.answeredNanos());
        }
      }
      default -> {
        // Another hold is there: watched from its first sight, by this process's clock.
        if (r.watched == null
            || !r.watched.key().equals(t.key())
            || !r.watched.value().equals(x.found())) {
          r.watched = new GateMachine.Watched(t.key(), x.found(), a.answeredNanos());
        }
      }
    }
  }

  /**
   * The hold a take made: proven when taken over a released or stale value (its gate may open now),
   * unproven when taken from an absent key (its gate opens once a renewal proves it).
   */
  private void took(GateMachine.Take t, GateMachine.Answered a, boolean proven) {
    long ttl = r.c.ttlNanos();
    r.hold =
        new GateRule.Hold(
            t.key(),
            t.hold(),
            t.term(),
            proven,
            a.answeredNanos() + ttl,
            a.sentNanos() + ttl - r.c.marginNanos(),
            a.sentNanos());
    r.watched = null;
    r.keyPresentOn = a.answer().incarnation();
  }

  /** Why the key was absent, as far as this agent can tell, logged as what it is. */
  private void absent(String key, GateKey.Answer x) {
    long ms = TimeUnit.NANOSECONDS.toMillis(r.c.ttlNanos());
    String wait = ": this gate opens only after holding the key for " + ms + " ms";
    if (!x.found().isEmpty()) {
      r.log(
          true,
          "the gate key "
              + key
              + " held a value written by another Redis (one restarted from a snapshot, or a"
              + " promoted replica): such a value may be older than the last, so it counts as"
              + " absent"
              + wait);
    } else if (x.incarnation().equals(r.keyPresentOn)) {
      r.log(
          true,
          "the gate key "
              + key
              + " was lost from Redis (deleted, or evicted: see maxmemory-policy)"
              + wait);
    } else {
      r.log(
          false,
          "no gate has held the key "
              + key
              + " on this Redis yet (the group's first gate, or Redis started empty)"
              + wait);
    }
  }

  private void renewed(GateMachine.Renew n, GateMachine.Answered a) {
    GateKey.Answer x = a.answer();
    if (r.hold == null || !r.hold.equals(n.hold()) || x == null) {
      return; // let go meanwhile, or no answer: the deadline closes the gates if this goes on
    }
    switch (x.code()) {
      case 1 -> r.hold = r.hold.renewed(a.sentNanos(), r.c.ttlNanos() - r.c.marginNanos());
      case 3 -> {
        if (a.answeredNanos() - r.hold.untilNanos() >= 0) {
          // Sent before the deadline, but it may have run after it, when another gate could have
          // opened on the lost key: this gate stays closed, and the key it wrote goes stale.
          r.log(
              true,
              "the gate key "
                  + n.hold().key()
                  + " was lost from Redis and taken again by a renewal answered after this gate's"
                  + " deadline: the gate stays closed and that hold is left to go stale");
          r.drop();
          return;
        }
        r.hold =
            new GateRule.Hold(
                    r.hold.key(),
                    n.retakeAs(),
                    r.hold.term(),
                    true,
                    r.hold.openAfterNanos(),
                    r.hold.untilNanos(),
                    r.hold.lastSentNanos())
                .renewed(a.sentNanos(), r.c.ttlNanos() - r.c.marginNanos());
        r.log(
            true,
            "the gate key "
                + n.hold().key()
                + " was lost from Redis while this gate was open; taken again within its"
                + " deadline, connections kept");
      }
      default -> {
        r.log(
            false,
            x.code() == 2
                ? "the gate key " + n.hold().key() + " was lost from Redis"
                : "the gate key " + n.hold().key() + " is no longer this agent's");
        r.drop();
      }
    }
  }

  /**
   * A follower watches the hold too: a value it found unchanged for a whole ttl, read before its
   * promotion, lets its first take after the promotion go ahead at once, since its holder renewed
   * nothing for that long (a holder that died is replaced sooner).
   */
  private void watch(String key, GateKey.Answer x, long answeredNanos) {
    if (x == null || x.code() != 1 || GateValue.parse(x.found()) == null) {
      return;
    }
    if (r.watched == null || !r.watched.key().equals(key) || !r.watched.value().equals(x.found())) {
      r.watched = new GateMachine.Watched(key, x.found(), answeredNanos);
    }
  }

  /** Who leads by the key, for a follower's answers: a proven hold only (its gate may be open). */
  private void holderRead(GateKey.Answer x) {
    if (x == null || r.open) {
      return;
    }
    GateValue v = GateValue.parse(x.found());
    if (x.code() == 1 && v != null && v.state() == GateValue.HELD) {
      r.leaderPod = GateValue.podOf(v.hold());
      r.leaderTerm = v.term();
      r.leaderIp = GateValue.addressOf(v.hold());
    } else {
      r.leaderPod = null;
      r.leaderTerm = null;
      r.leaderIp = null;
    }
  }
}
