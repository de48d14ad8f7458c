package dev.baton.agent.leadership;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The group's hold key as this agent's calls last found it: its hold (if it has one), the call in
 * flight, when each kind of call was last sent, a value it watches go stale, the takes whose
 * answers it gave up on, and the incarnation of Redis it last saw the key on.
 *
 * @param callPending a take, renewal or read of the holder is out: one at a time
 * @param names how many hold names this process has given out: the next one's number
 * @param watched another hold's value, and since when it was found unchanged
 * @param presentOn the incarnation of Redis this agent last saw the key on
 * @param lost takes given up on that may still run: their holds, recognised when the key is read
 */
record KeyState(
    Hold hold,
    boolean callPending,
    long lastTake,
    long lastHolderRead,
    long lastFactsRead,
    long names,
    Watched watched,
    String presentOn,
    List<LostTake> lost) {

  /** How many lost takes are remembered: a take is lost at most once a Redis timeout. */
  static final int LOST_KEPT = 4;

  /** A value another agent's hold had when this agent first found it, and when that was. */
  record Watched(String key, String value, long sinceNanos) {}

  /** A take whose answer never came: it may have run, and its hold may be in the key. */
  record LostTake(String key, String hold, long term, long sentNanos) {}

  KeyState {
    lost = List.copyOf(lost);
  }

  static KeyState initial(long now) {
    long longAgo = now - TimeUnit.DAYS.toNanos(1);
    return new KeyState(null, false, longAgo, longAgo, longAgo, 0, null, null, List.of());
  }

  KeyState withHold(Hold h) {
    return new KeyState(
        h, callPending, lastTake, lastHolderRead, lastFactsRead, names, watched, presentOn, lost);
  }

  KeyState withWatched(Watched w) {
    return new KeyState(
        hold, callPending, lastTake, lastHolderRead, lastFactsRead, names, w, presentOn, lost);
  }

  KeyState withPresentOn(String incarnation) {
    return new KeyState(
        hold,
        callPending,
        lastTake,
        lastHolderRead,
        lastFactsRead,
        names,
        watched,
        incarnation,
        lost);
  }

  KeyState withLost(List<LostTake> l) {
    return new KeyState(
        hold, callPending, lastTake, lastHolderRead, lastFactsRead, names, watched, presentOn, l);
  }

  KeyState answered() {
    return new KeyState(
        hold, false, lastTake, lastHolderRead, lastFactsRead, names, watched, presentOn, lost);
  }

  /** The next take may go at once (a grant, a message that the key changed). */
  KeyState takeAtOnce(LeadershipConfig c, long now) {
    return new KeyState(
        hold,
        callPending,
        now - c.takeEveryNanos(),
        lastHolderRead,
        lastFactsRead,
        names,
        watched,
        presentOn,
        lost);
  }

  /** The key's next call, if one is due; {@code want} the key to hold now, or null. */
  Next<KeyState> work(
      LeadershipConfig c, String want, String group, long term, boolean open, String ip, long now) {
    if (!c.withKey() || callPending) {
      return Next.of(this);
    }
    if (want == null) {
      if (group != null && now - lastHolderRead > c.holderEveryNanos()) {
        return readHolder(c, group, now);
      }
      if (group != null && now - lastFactsRead > c.redisFactsEveryNanos()) {
        return readFacts(group, now);
      }
      return Next.of(this);
    }
    if (hold == null) {
      return now - lastTake >= c.takeEveryNanos() ? take(c, want, term, ip, now) : Next.of(this);
    }
    boolean proofDue = !hold.proven() && now - hold.openAfterNanos() >= 0;
    if (proofDue || now - hold.lastSentNanos() >= c.renewEveryNanos()) {
      // While the gates are open, an absent key may be taken again, under a name of this call's.
      String retakeAs = open ? c.holdName(hold.term(), names, ip) : null;
      HoldCall.Renew renew =
          new HoldCall.Renew(hold, retakeAs, open ? hold.untilNanos() : Long.MIN_VALUE, proofDue);
      return Next.of(sent(lastTake, lastHolderRead, open ? names + 1 : names), renew);
    }
    return now - lastFactsRead > c.redisFactsEveryNanos() ? readFacts(want, now) : Next.of(this);
  }

  private Next<KeyState> take(LeadershipConfig c, String key, long term, String ip, long now) {
    String expected =
        watched != null && watched.key().equals(key) && now - watched.sinceNanos() >= c.ttlNanos()
            ? watched.value()
            : "";
    HoldCall.Take take = new HoldCall.Take(key, c.holdName(term, names, ip), term, expected);
    return Next.of(sent(now, lastHolderRead, names + 1), take);
  }

  /**
   * A read of who holds the key; while a call is out, one as soon as it answered, since a change
   * told meanwhile may be newer than what that call reads (a relay waits on it).
   */
  Next<KeyState> readHolder(LeadershipConfig c, String key, long now) {
    if (callPending) {
      return Next.of(
          new KeyState(
              hold,
              true,
              lastTake,
              now - c.holderEveryNanos() - 1,
              lastFactsRead,
              names,
              watched,
              presentOn,
              lost));
    }
    return Next.of(sent(lastTake, now, names), new HoldCall.ReadHolder(key));
  }

  /** A read of what the key's node does with it: beside the one call, never in its way. */
  private Next<KeyState> readFacts(String key, long now) {
    return Next.of(
        new KeyState(
            hold, callPending, lastTake, lastHolderRead, now, names, watched, presentOn, lost),
        new HoldCall.ReadFacts(key));
  }

  private KeyState sent(long take, long holderRead, long nextNames) {
    return new KeyState(
        hold, true, take, holderRead, lastFactsRead, nextNames, watched, presentOn, lost);
  }

  /** A take given up on, remembered so that its hold is recognised if it ran after all. */
  KeyState lostTake(HoldCall.Take t, long sentNanos) {
    List<LostTake> l = new ArrayList<>(lost);
    l.add(new LostTake(t.key(), t.hold(), t.term(), sentNanos));
    while (l.size() > LOST_KEPT) {
      l.remove(0);
    }
    return withLost(l);
  }

  /** The lost take whose hold is {@code holdName}, or null. */
  LostTake lostWith(String holdName) {
    for (LostTake t : lost) {
      if (t.hold().equals(holdName)) {
        return t;
      }
    }
    return null;
  }

  KeyState forget(LostTake t) {
    List<LostTake> l = new ArrayList<>(lost);
    l.remove(t);
    return withLost(l);
  }
}
