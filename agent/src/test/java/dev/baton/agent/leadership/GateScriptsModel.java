package dev.baton.agent.leadership;

/**
 * The gate scripts (gate-take, gate-renew, gate-let-go, gate-holder) as Java, over one key, for the
 * gate model to explore: a second copy of what the Lua does, which GateScriptsDifferentialIT holds
 * to the Lua run by a real redis-server on random operation sequences. Immutable: every script
 * returns the key's next state with its answer.
 *
 * @param incarnation which Redis this is ({@code <run_id>.<master_replid>} in the Lua)
 * @param value the key's raw value, null when absent
 * @param highest the key beside it, the highest term a take wrote; 0 when absent
 * @param clockMillis Redis's clock, only ever returned
 */
record GateScriptsModel(String incarnation, String value, long highest, long clockMillis) {

  /** A script's answer and the key after it. */
  record Result(GateKey.Answer answer, GateScriptsModel after) {}

  private GateValue current() {
    GateValue v = GateValue.parse(value);
    return v != null && v.incarnation().equals(incarnation) ? v : null;
  }

  private String found() {
    return value == null ? "" : value;
  }

  private GateKey.Answer answer(int code, String found) {
    return new GateKey.Answer(code, found, incarnation, clockMillis);
  }

  private GateScriptsModel with(char state, long term, long seq, String hold) {
    return new GateScriptsModel(
        incarnation,
        new GateValue(state, term, seq, incarnation, hold).raw(),
        highest,
        clockMillis);
  }

  private GateScriptsModel highest(long term) {
    return new GateScriptsModel(incarnation, value, term, clockMillis);
  }

  Result take(String hold, long term, String expected) {
    GateValue cur = current();
    if (term < highest || (cur != null && cur.term() > term)) {
      return new Result(answer(3, found()), this);
    }
    if (cur == null) {
      return new Result(answer(2, found()), with(GateValue.UNPROVEN, term, 0, hold).highest(term));
    }
    if (cur.state() == GateValue.RELEASED || (!expected.isEmpty() && value.equals(expected))) {
      return new Result(answer(1, value), with(GateValue.HELD, term, 0, hold).highest(term));
    }
    return new Result(answer(0, value), this);
  }

  Result renew(String hold, long term, String retakeAs, boolean prove) {
    GateValue cur = current();
    if (cur != null && cur.hold().equals(hold) && cur.state() != GateValue.RELEASED) {
      char state = prove ? GateValue.HELD : cur.state();
      return new Result(answer(1, value), with(state, cur.term(), cur.seq() + 1, hold));
    }
    if (cur == null) {
      if (term < highest) {
        return new Result(answer(0, found()), this);
      }
      return !retakeAs.isEmpty()
          ? new Result(answer(3, found()), with(GateValue.HELD, term, 0, retakeAs).highest(term))
          : new Result(answer(2, found()), this);
    }
    return new Result(answer(0, value), this);
  }

  Result letGo(String hold) {
    GateValue cur = current();
    if (cur != null && cur.hold().equals(hold) && cur.state() == GateValue.HELD) {
      return new Result(
          answer(1, value), with(GateValue.RELEASED, cur.term(), cur.seq() + 1, hold));
    }
    return new Result(answer(0, found()), this);
  }

  Result holder() {
    return new Result(answer(current() != null ? 1 : 0, found()), this);
  }

  /** The script a call runs, with its arguments as the agent's KeyCalls sends them. */
  Result run(GateMachine.Call call, boolean retake) {
    if (call instanceof GateMachine.Take t) {
      return take(t.hold(), t.term(), t.expected());
    }
    if (call instanceof GateMachine.Renew n) {
      return renew(n.hold().value(), n.hold().term(), retake ? n.retakeAs() : "", n.prove());
    }
    if (call instanceof GateMachine.LetGo l) {
      return letGo(l.hold().value());
    }
    return holder();
  }

  /** The gate key deleted (DEL, an eviction); the term beside it stays. */
  GateScriptsModel deleted() {
    return new GateScriptsModel(incarnation, null, highest, clockMillis);
  }

  /**
   * Another incarnation with {@code restored} as it was when saved (null: started empty): its value
   * and the term beside it.
   */
  GateScriptsModel restarted(String nextIncarnation, GateScriptsModel restored) {
    return restored == null
        ? new GateScriptsModel(nextIncarnation, null, 0, clockMillis)
        : new GateScriptsModel(nextIncarnation, restored.value, restored.highest, clockMillis);
  }

  GateScriptsModel clockStepped(long millis) {
    return new GateScriptsModel(incarnation, value, highest, clockMillis + millis);
  }
}
