package dev.baton.agent.leadership;

import dev.baton.agent.leadership.GateMachine.Belief;
import dev.baton.agent.leadership.GateMachine.Close;
import dev.baton.agent.leadership.GateMachine.Config;
import dev.baton.agent.leadership.GateMachine.Effect;
import dev.baton.agent.leadership.GateMachine.LetGo;
import dev.baton.agent.leadership.GateMachine.Log;
import dev.baton.agent.leadership.GateMachine.Open;
import dev.baton.agent.leadership.GateMachine.ReadFacts;
import dev.baton.agent.leadership.GateMachine.ReadHolder;
import dev.baton.agent.leadership.GateMachine.Renew;
import dev.baton.agent.leadership.GateMachine.State;
import dev.baton.agent.leadership.GateMachine.Take;
import dev.baton.agent.leadership.GateMachine.Watched;
import dev.baton.client.BatonNames;
import dev.baton.client.PodFacts;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * One step of the decision (GateDecision): its working copy of the state, the effects it emits, and
 * what beliefs, pods seen, deadlines and the gate key's next call do to them. {@link GateAnswers}
 * applies Redis's answers to it.
 */
final class GateRun {
  final Config c;
  final long now;
  final List<Effect> effects = new ArrayList<>();
  boolean confirmed;
  long term;
  long confirmedUntil;
  long newestTerm;
  PodFacts facts;
  boolean cut;
  boolean closing;
  GateRule.Hold hold;
  boolean callPending;
  long lastTake;
  long lastHolderRead;
  long lastFactsRead;
  long holdNames;
  Watched watched;
  boolean open;
  long openUntil;
  String leaderPod;
  Long leaderTerm;
  String leaderIp;
  boolean warnedNoGroup;
  String keyPresentOn;

  GateRun(Config c, State s, long now) {
    this.c = c;
    this.now = now;
    confirmed = s.confirmed();
    term = s.term();
    confirmedUntil = s.confirmedUntil();
    newestTerm = s.newestTerm();
    facts = s.facts();
    cut = s.cut();
    closing = s.closing();
    hold = s.hold();
    callPending = s.callPending();
    lastTake = s.lastTake();
    lastHolderRead = s.lastHolderRead();
    lastFactsRead = s.lastFactsRead();
    holdNames = s.holdNames();
    watched = s.watched();
    open = s.open();
    openUntil = s.openUntil();
    leaderPod = s.leaderPod();
    leaderTerm = s.leaderTerm();
    leaderIp = s.leaderIp();
    warnedNoGroup = s.warnedNoGroup();
    keyPresentOn = s.keyPresentOn();
  }

  State state() {
    return new State(
        confirmed,
        term,
        confirmedUntil,
        newestTerm,
        facts,
        cut,
        closing,
        hold,
        callPending,
        lastTake,
        lastHolderRead,
        lastFactsRead,
        holdNames,
        watched,
        open,
        openUntil,
        leaderPod,
        leaderTerm,
        leaderIp,
        warnedNoGroup,
        keyPresentOn);
  }

  void log(boolean warn, String message) {
    effects.add(new Log(warn, message));
  }

  void belief(Belief b) {
    if (b.leader()) {
      newestTerm = Math.max(newestTerm, b.term());
      boolean granted = !confirmed || term != b.term();
      confirmed = true;
      term = b.term();
      confirmedUntil = b.confirmedUntilNanos();
      apply(null);
      if (granted) {
        takeAtOnce();
      }
      keyWork();
    } else if (confirmed) {
      confirmed = false;
      release("no longer confirmed leader");
    }
  }

  void podSeen(PodFacts seen) {
    // A deleted pod's agent runs on for a while (a relay carries connections to the next leader
    // as it stops): it keeps following the group it was in, never as a leader.
    facts =
        seen != null && !seen.exists() && facts != null
            ? new PodFacts(false, facts.uid(), Map.of(), facts.annotations(), false, facts.ip())
            : seen;
    newestTerm = Math.max(newestTerm, termShown(seen));
    boolean certain = NotReadyCut.after(cut, seen, c.roleLabel());
    boolean cutNow = certain && !cut;
    cut = certain;
    if (cutNow) {
      release("the pod is not ready and its group fails over at once");
    } else {
      apply(null);
    }
    keyWork(); // ready again: take the key at once if still confirmed
  }

  private long termShown(PodFacts seen) {
    if (seen == null || !BatonNames.LEADER.equals(seen.labels().get(c.roleLabel()))) {
      return 0;
    }
    try {
      return Long.parseLong(seen.annotations().getOrDefault(BatonNames.TERM_ANNOTATION, "0"));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  void keyMessage(String key) {
    String group = groupKey();
    if (key.equals(group)) {
      takeAtOnce();
      keyWork();
      if (!confirmed) {
        readHolder(group);
      }
    }
  }

  void takeAtOnce() {
    lastTake = now - c.takeEveryNanos();
  }

  /**
   * Drops the hold, closes the gates (no hold, no open gate) and only then lets the hold go: a
   * successor may open as soon as it is released. An unproven hold (taken from an absent key) is
   * left to go stale: a release mark would let the next taker skip the wait that protects against a
   * holder whose key was lost.
   */
  void release(String reason) {
    GateRule.Hold h = hold;
    drop();
    apply(reason);
    if (h != null) {
      if (h.proven()) {
        effects.add(new LetGo(h));
      } else {
        log(
            false,
            "the gate key "
                + h.key()
                + " was taken while absent and is not proven: left to go stale");
      }
    }
  }

  /**
   * Forgets the hold. The next take names another: a let-go or renewal of this one still queued
   * must never act on it. Refused attempts in between name the same, so that a lost attempt that
   * ran after all is one this agent would recognise.
   */
  void drop() {
    if (hold != null) {
      hold = null;
      holdNames++;
    }
  }

  String groupKey() {
    String group = facts == null ? null : facts.annotations().get(BatonNames.GROUP_ANNOTATION);
    String key = group == null || group.isBlank() ? null : GateKey.name(c.namespace(), group);
    if (key == null && confirmed && !warnedNoGroup) {
      warnedNoGroup = true;
      log(
          true,
          "the pod is labeled leader but has no "
              + BatonNames.GROUP_ANNOTATION
              + " annotation: the gate stays shut");
    }
    return key;
  }

  /** Whether the pod may lead now, by what it was shown: confirmed, for its newest term. */
  private boolean mayLead() {
    return confirmed && term >= newestTerm;
  }

  /** The gate key's next call, once a hold the pod may no longer keep was let go. */
  void keyWork() {
    if (!c.withKey()) {
      return;
    }
    String group = groupKey();
    String key = mayLead() && !closing && !cut ? group : null;
    if (hold != null && (key == null || !key.equals(hold.key()) || hold.term() != term)) {
      release(hold.term() != term ? "the term changed" : "no longer confirmed leader");
    }
    if (callPending) {
      return;
    }
    if (key == null) {
      if (group != null && now - lastHolderRead > c.holderEveryNanos()) {
        readHolder(group);
      } else if (group != null && now - lastFactsRead > c.redisFactsEveryNanos()) {
        readFacts(group);
      }
    } else if (hold == null) {
      if (now - lastTake >= c.takeEveryNanos()) {
        lastTake = now;
        callPending = true;
        String expected =
            watched != null
                    && watched.key().equals(key)
                    && now - watched.sinceNanos() >= c.ttlNanos()
                ? watched.value()
                : "";
        effects.add(
            new Take(
                key,
                GateValue.hold(c.namespace(), c.pod(), term, c.nonce(), holdNames, ip()),
                term,
                expected));
      }
    } else {
      boolean proofDue = !hold.proven() && now - hold.openAfterNanos() >= 0;
      if (proofDue || now - hold.lastSentNanos() >= c.renewEveryNanos()) {
        callPending = true;
        String retakeAs = null;
        if (open) {
          retakeAs =
              GateValue.hold(c.namespace(), c.pod(), hold.term(), c.nonce(), holdNames, ip());
          holdNames++;
        }
        effects.add(new Renew(hold, retakeAs, open ? hold.untilNanos() : Long.MIN_VALUE, proofDue));
      } else if (now - lastFactsRead > c.redisFactsEveryNanos()) {
        readFacts(key);
      }
    }
  }

  void readHolder(String key) {
    if (!callPending) {
      lastHolderRead = now;
      callPending = true;
      effects.add(new ReadHolder(key));
    } else {
      // A change told while a call is out may be newer than what that call reads: read again
      // as soon as it answered, not a whole holderEvery later (a relay waits on it).
      lastHolderRead = now - c.holderEveryNanos() - 1;
    }
  }

  /** A read of what the key's node does with it: beside the one call, never in its way. */
  private void readFacts(String key) {
    lastFactsRead = now;
    effects.add(new ReadFacts(key));
  }

  /** Opens, extends or closes the gates by the rule, as of now. */
  void apply(String reason) {
    OptionalLong until =
        GateRule.openUntil(
            new GateRule.Facts(mayLead(), term, confirmedUntil, cut, closing, c.withKey(), hold),
            now);
    if (until.isEmpty()) {
      if (open) {
        open = false;
        effects.add(new Close(reason != null ? reason : why()));
        if (c.pod().equals(leaderPod)) {
          leaderPod = null;
          leaderTerm = null;
          leaderIp = null;
        }
      }
    } else if (!open || openUntil != until.getAsLong()) {
      openUntil = until.getAsLong();
      effects.add(new Open(openUntil, term));
      if (!open) {
        open = true;
        leaderPod = c.pod();
        leaderTerm = term;
        leaderIp = ip();
      }
    }
  }

  /** The pod's own IP, as its pod source last showed it. */
  private String ip() {
    return facts == null ? null : facts.ip();
  }

  private String why() {
    if (closing) {
      return "the agent is stopping";
    }
    if (!confirmed) {
      return "no longer confirmed leader";
    }
    if (term < newestTerm) {
      return "term " + term + " is older than term " + newestTerm + ", shown since";
    }
    if (now - confirmedUntil >= 0) {
      return "leadership could not be confirmed before its deadline";
    }
    if (c.withKey() && hold == null) {
      return "the gate key is not this agent's";
    }
    return "the gate key could not be renewed before its deadline";
  }
}
