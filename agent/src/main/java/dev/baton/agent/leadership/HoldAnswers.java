package dev.baton.agent.leadership;

import java.util.concurrent.TimeUnit;

/**
 * What the hold key's answers mean: a take that makes a hold, recognises one of its own lost takes,
 * or adds to the watch of another's; a renewal that extends or loses the hold; a read of who holds
 * the key. Pure: the state and an answer give the next state and its effects.
 */
final class HoldAnswers {

  private HoldAnswers() {}

  static Next<AgentState> answered(LeadershipConfig c, AgentState s, Input.Answered a) {
    HoldKey.Answer x = a.answer();
    if (a.call() instanceof HoldCall.LetGo l) {
      return x == null
          ? Next.of(
              s,
              new Effect.Log(
                  true, "could not let go of the hold key " + l.key() + "; it goes stale"))
          : Next.of(s);
    }
    KeyState k = s.key().answered();
    HoldValue found = x == null ? null : HoldValue.parse(x.found());
    if (found != null && x.incarnation().equals(found.incarnation())) {
      k = k.withPresentOn(x.incarnation());
    }
    AgentState t = s.withKey(k);
    if (a.call() instanceof HoldCall.Take take) {
      return taken(c, t, take, a);
    }
    if (a.call() instanceof HoldCall.Renew renew) {
      return renewed(c, t, renew, a);
    }
    if (x == null) {
      return Next.of(t);
    }
    AgentState read = t.gates().open() ? t : t.withLeader(LeaderState.fromKey(x));
    return x.code() == 1 && found != null
        ? Next.of(watch(read, a.call().key(), x.found(), a.answeredNanos()))
        : Next.of(read);
  }

  private static Next<AgentState> taken(
      LeadershipConfig c, AgentState s, HoldCall.Take t, Input.Answered a) {
    HoldKey.Answer x = a.answer();
    if (x == null) {
      return Next.of(s.withKey(s.key().lostTake(t, a.sentNanos())));
    }
    switch (x.code()) {
      case 1:
        return Next.of(took(c, s, t, a, true));
      case 2:
        // Logged before took(): it compares with the incarnation seen before.
        return Next.of(took(c, s, t, a, false), absent(c, s, t.key(), x));
      case 3:
        return newerTerm(s, t, a);
      default:
        Next<AgentState> own = recognised(c, s, t, a);
        return own != null ? own : Next.of(watch(s, t.key(), x.found(), a.answeredNanos()));
    }
  }

  /**
   * The hold a take made: proven when taken over a released or stale value (its gates may open
   * now), unproven when taken from an absent key (its gates open once a renewal proves it).
   */
  private static AgentState took(
      LeadershipConfig c, AgentState s, HoldCall.Take t, Input.Answered a, boolean proven) {
    Hold h = Hold.taken(c, t.key(), t.hold(), t.term(), proven, a.sentNanos(), a.answeredNanos());
    return s.withKey(s.key().withHold(h).withWatched(null).withPresentOn(a.answer().incarnation()));
  }

  /**
   * The key names a hold of this agent's own that it did not know it had: a take given up on that
   * ran after all, or this very take run before (a call that ran twice). Kept when it is still the
   * hold this pod should have, as the take's own answer would have made it: dated from that take's
   * sending, and unproven until a renewal a whole ttl after this answer; else let go, if proven,
   * since no gate ever opened on it. Null when the key names no such hold.
   */
  private static Next<AgentState> recognised(
      LeadershipConfig c, AgentState s, HoldCall.Take t, Input.Answered a) {
    HoldKey.Answer x = a.answer();
    HoldValue v = HoldValue.parse(x.found());
    if (v == null || !v.incarnation().equals(x.incarnation())) {
      return null;
    }
    KeyState.LostTake lost =
        v.hold().equals(t.hold())
            ? new KeyState.LostTake(t.key(), t.hold(), t.term(), a.sentNanos())
            : s.key().lostWith(v.hold());
    if (lost == null) {
      return null;
    }
    KeyState k = s.key().forget(lost);
    boolean held = v.state() == HoldValue.HELD;
    if (lost.term() == s.pod().term() && lost.key().equals(s.wantedKey(c)) && k.hold() == null) {
      Hold h =
          Hold.taken(
              c, lost.key(), lost.hold(), lost.term(), held, lost.sentNanos(), a.answeredNanos());
      return Next.of(
          s.withKey(k.withHold(h).withWatched(null)),
          Effect.Log.ofKey(
              true,
              lost.key(),
              " holds this agent's take whose answer was lost: kept as its hold"));
    }
    Effect after =
        held
            ? new HoldCall.LetGo(
                new Hold(lost.key(), lost.hold(), lost.term(), true, 0, 0, lost.sentNanos()))
            : Effect.Log.ofKey(
                false,
                lost.key(),
                " holds this agent's lost take, no longer wanted: left to go stale");
    return Next.of(s.withKey(k), after);
  }

  private static Next<AgentState> newerTerm(AgentState s, HoldCall.Take t, Input.Answered a) {
    HoldKey.Answer x = a.answer();
    KeyState.Watched w = s.key().watched();
    if (w != null && x.found().equals(w.value())) {
      return Next.of(s);
    }
    HoldValue v = HoldValue.parse(x.found());
    return Next.of(
        s.withKey(s.key().withWatched(new KeyState.Watched(t.key(), x.found(), a.answeredNanos()))),
        Effect.Log.ofKey(
            true,
            t.key(),
            " records term "
                + (v == null ? "?" : v.term())
                + ", newer than this pod's "
                + t.term()
                + ": its gates stay shut"));
  }

  /** Why the key was absent, as far as this agent can tell, logged as what it is. */
  private static Effect absent(LeadershipConfig c, AgentState s, String key, HoldKey.Answer x) {
    long ms = TimeUnit.NANOSECONDS.toMillis(c.ttlNanos());
    String wait = ": the gates open only after holding the key for " + ms + " ms";
    if (!x.found().isEmpty()) {
      return Effect.Log.ofKey(
          true,
          key,
          " held a value written by another Redis (one restarted from a snapshot, or a"
              + " promoted replica): such a value may be older than the last, so it counts as"
              + " absent"
              + wait);
    }
    if (x.incarnation().equals(s.key().presentOn())) {
      return Effect.Log.ofKey(
          true, key, " was lost from Redis (deleted, or evicted: see maxmemory-policy)" + wait);
    }
    return new Effect.Log(
        false,
        "no gate has held the key "
            + key
            + " on this Redis yet (the group's first gate, or Redis started empty)"
            + wait);
  }

  private static Next<AgentState> renewed(
      LeadershipConfig c, AgentState s, HoldCall.Renew n, Input.Answered a) {
    HoldKey.Answer x = a.answer();
    Hold h = s.key().hold();
    if (h == null || !h.equals(n.hold()) || x == null) {
      // Let go meanwhile, or no answer: the deadline closes the gates if this goes on.
      return Next.of(s);
    }
    long extend = c.ttlNanos() - c.marginNanos();
    switch (x.code()) {
      case 1:
        return Next.of(s.withHold(h.renewed(a.sentNanos(), extend)));
      case 3:
        if (a.answeredNanos() - h.untilNanos() >= 0) {
          // Sent before the deadline, but it may have run after it, when another gate could have
          // opened on the lost key: the gates stay closed, and the value it wrote goes stale.
          return Next.of(
              s.withHold(null),
              Effect.Log.ofKey(
                  true,
                  h.key(),
                  " was lost from Redis and taken again by a renewal answered after the"
                      + " gates' deadline: they stay closed and that hold is left to go stale"));
        }
        return Next.of(
            s.withHold(h.retakenAs(n.retakeAs()).renewed(a.sentNanos(), extend)),
            Effect.Log.ofKey(
                true,
                h.key(),
                " was lost from Redis while the gates were open; taken again within their"
                    + " deadline, connections kept"));
      default:
        return Next.of(
            s.withHold(null),
            new Effect.Log(
                false,
                x.code() == 2
                    ? "the hold key " + h.key() + " was lost from Redis"
                    : "the hold key " + h.key() + " is no longer this agent's"));
    }
  }

  /**
   * A follower watches the hold too: a value it found unchanged for a whole ttl, read before its
   * promotion, lets its first take after the promotion go ahead at once, since its holder renewed
   * nothing for that long (a holder that died is replaced sooner). Dated from the answer: the value
   * was there then, maybe not when the read was sent.
   */
  private static AgentState watch(AgentState s, String key, String value, long answeredNanos) {
    KeyState.Watched w = s.key().watched();
    if (w != null && w.key().equals(key) && w.value().equals(value)) {
      return s;
    }
    return s.withKey(s.key().withWatched(new KeyState.Watched(key, value, answeredNanos)));
  }
}
