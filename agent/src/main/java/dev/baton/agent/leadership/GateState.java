package dev.baton.agent.leadership;

import java.util.OptionalLong;
import java.util.function.Supplier;

/**
 * The gates as the decision last set them: open or shut, and until when they may forward.
 *
 * @param untilNanos while open, the deadline the gates were told
 */
record GateState(boolean open, long untilNanos) {

  static GateState shut(long now) {
    return new GateState(false, now);
  }

  /** Set to what the rule allows ({@code until}, empty: shut), with the effect that tells them. */
  Next<GateState> set(OptionalLong until, long term, Supplier<String> why) {
    if (until.isEmpty()) {
      return open
          ? Next.of(new GateState(false, untilNanos), new Effect.Close(why.get()))
          : Next.of(this);
    }
    long u = until.getAsLong();
    return !open || untilNanos != u
        ? Next.of(new GateState(true, u), new Effect.Open(u, term, !open))
        : Next.of(this);
  }
}
