package dev.baton.agent.leadership;

/**
 * The hold scripts (hold-take, hold-renew, hold-let-go, hold-read) as Java, over one key, for the
 * gate model to explore: a second copy of what the Lua does, which HoldScriptsDifferentialIT holds
 * to the Lua run by a real redis-server on random operation sequences. Immutable: every script
 * returns the key's next state with its answer.
 *
 * @param incarnation which Redis this is ({@code <run_id>.<master_replid>} in the Lua)
 * @param value the key's raw value, null when absent
 * @param highest the key beside it, the highest term a take wrote; 0 when absent
 * @param writes the key beside it, the number of the last write; 0 when absent
 * @param clockMillis Redis's clock, only ever returned
 */
record HoldScriptsModel(
    String incarnation, String value, long highest, long writes, long clockMillis) {

  /** A script's answer and the key after it. */
  record Result(HoldKey.Answer answer, HoldScriptsModel after) {}

  private HoldValue current() {
    HoldValue v = HoldValue.parse(value);
    return v != null && v.incarnation().equals(incarnation) ? v : null;
  }

  private String found() {
    return value == null ? "" : value;
  }

  private HoldKey.Answer answer(int code, String found) {
    return new HoldKey.Answer(code, found, incarnation, clockMillis);
  }

  /** The value written with the next write number (hold-value.lua's write). */
  private HoldScriptsModel with(char state, long term, String hold) {
    HoldValue cur = current();
    long seq = writes + 1;
    if (cur != null && cur.seq() >= seq) {
      seq = cur.seq() + 1;
    }
    return new HoldScriptsModel(
        incarnation,
        new HoldValue(state, term, seq, incarnation, hold).raw(),
        highest,
        seq,
        clockMillis);
  }

  private HoldScriptsModel highest(long term) {
    return new HoldScriptsModel(incarnation, value, term, writes, clockMillis);
  }

  Result take(String hold, long term, String expected) {
    HoldValue cur = current();
    if (term < highest || (cur != null && cur.term() > term)) {
      return new Result(answer(3, found()), this);
    }
    if (cur == null) {
      return new Result(answer(2, found()), with(HoldValue.UNPROVEN, term, hold).highest(term));
    }
    if (!cur.hold().equals(hold)
        && (cur.state() == HoldValue.RELEASED || (!expected.isEmpty() && value.equals(expected)))) {
      return new Result(answer(1, value), with(HoldValue.HELD, term, hold).highest(term));
    }
    return new Result(answer(0, value), this);
  }

  Result renew(String hold, long term, String retakeAs, boolean prove) {
    HoldValue cur = current();
    if (cur != null && cur.hold().equals(hold) && cur.state() != HoldValue.RELEASED) {
      char state = prove ? HoldValue.HELD : cur.state();
      return new Result(answer(1, value), with(state, cur.term(), hold));
    }
    if (cur == null) {
      if (term < highest) {
        return new Result(answer(0, found()), this);
      }
      return !retakeAs.isEmpty()
          ? new Result(answer(3, found()), with(HoldValue.HELD, term, retakeAs).highest(term))
          : new Result(answer(2, found()), this);
    }
    return new Result(answer(0, value), this);
  }

  Result letGo(String hold) {
    HoldValue cur = current();
    if (cur != null && cur.hold().equals(hold) && cur.state() == HoldValue.HELD) {
      return new Result(answer(1, value), with(HoldValue.RELEASED, cur.term(), hold));
    }
    return new Result(answer(0, found()), this);
  }

  Result holder() {
    return new Result(answer(current() != null ? 1 : 0, found()), this);
  }

  /** The script a call runs, with its arguments as the agent's HoldCalls sends them. */
  Result run(HoldCall call, boolean retake) {
    if (call instanceof HoldCall.Take t) {
      return take(t.hold(), t.term(), t.expected());
    }
    if (call instanceof HoldCall.Renew n) {
      return renew(n.hold().value(), n.hold().term(), retake ? n.retakeAs() : "", n.prove());
    }
    if (call instanceof HoldCall.LetGo l) {
      return letGo(l.hold().value());
    }
    return holder();
  }

  /** Whether the script {@code call} runs tells the waiting agents on {@code baton:gates}. */
  static boolean tells(HoldCall call, Result r) {
    int code = r.answer().code();
    if (call instanceof HoldCall.Take) {
      return code == 1 || code == 2;
    }
    if (call instanceof HoldCall.Renew n) {
      return code == 3 || code == 1 && n.prove() && r.answer().found().startsWith("A ");
    }
    return call instanceof HoldCall.LetGo && code == 1;
  }

  /** The gate key deleted (DEL, an eviction); the keys beside it stay. */
  HoldScriptsModel deleted() {
    return new HoldScriptsModel(incarnation, null, highest, writes, clockMillis);
  }

  /**
   * Another incarnation with {@code restored} as it was when saved (null: started empty): its value
   * and the keys beside it.
   */
  HoldScriptsModel restarted(String nextIncarnation, HoldScriptsModel restored) {
    return restored == null
        ? new HoldScriptsModel(nextIncarnation, null, 0, 0, clockMillis)
        : new HoldScriptsModel(
            nextIncarnation, restored.value, restored.highest, restored.writes, clockMillis);
  }

  HoldScriptsModel clockStepped(long millis) {
    return new HoldScriptsModel(incarnation, value, highest, writes, clockMillis + millis);
  }
}
