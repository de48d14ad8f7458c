package dev.baton.agent.leadership;

import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leadership loop's one step, on whatever thread runs it: an input in, the decision applied
 * ({@link LeadershipDecision}), its effects carried out in order (the gates opened or closed, calls
 * sent), what Redis said of itself noted ({@link RedisHealth}), the answer published ({@link
 * ViewBoard}). It alone holds the state. {@link AgentLeadership} runs it on a single thread and
 * gives it its sources; tests run it with a clock and calls of their own.
 */
final class LeadershipLoop {

  private static final Logger log = LoggerFactory.getLogger(LeadershipLoop.class);

  private final LeadershipConfig config;
  private final Exclusives gates;
  private final ViewBoard board;
  private final RedisHealth redisHealth;
  private final BiConsumer<HoldCall, LeadershipLoop> calls;
  private final LongSupplier clock;
  private AgentState state;

  /**
   * @param calls sends a call; its answer comes back through {@link #feed} (null: no Redis)
   * @param clock {@link System#nanoTime()}, or a test's
   */
  LeadershipLoop(
      LeadershipConfig config,
      Exclusives gates,
      ViewBoard board,
      RedisHealth redisHealth,
      BiConsumer<HoldCall, LeadershipLoop> calls,
      LongSupplier clock) {
    this.config = config;
    this.gates = gates;
    this.board = board;
    this.redisHealth = redisHealth;
    this.calls = calls;
    this.clock = clock;
    this.state = AgentState.initial(clock.getAsLong());
  }

  /**
   * One step: {@code input} as of now. A step that throws an exception is logged and the loop goes
   * on with the state it had; an {@link Error} is not caught here (AgentThreads ends the process).
   */
  void feed(Input input) {
    try {
      noteRedis(input);
      LeadershipDecision.Step step =
          LeadershipDecision.step(config, state, input, clock.getAsLong());
      state = step.state();
      if (log.isDebugEnabled() && !(input instanceof Input.Tick && step.effects().isEmpty())) {
        log.debug(
            "{} -> {}",
            input.getClass().getSimpleName(),
            step.effects().stream().map(e -> e.getClass().getSimpleName()).toList());
      }
      AgentView view = AgentView.of(config, state);
      if (!view.leadership().leader()) {
        // Told before any gate closes: whoever asks once a connection was cut hears "not leader".
        board.publish(view, state.gates().untilNanos());
      }
      for (Effect e : step.effects()) {
        carryOut(e);
      }
      // A leader is told only once its gates opened.
      board.publish(view, state.gates().untilNanos());
    } catch (RuntimeException e) {
      log.error("the leadership loop failed a step; it goes on", e);
    }
  }

  AgentState state() {
    return state;
  }

  /** What an answer tells of Redis itself: that it answered, its clock, its incarnation, INFO. */
  private void noteRedis(Input input) {
    if (input instanceof Input.Answered a) {
      if (a.answer() == null) {
        redisHealth.failed(a.answeredNanos());
      } else {
        redisHealth.answered(
            a.sentNanos(), a.answeredNanos(), a.answer().incarnation(), a.answer().redisMillis());
      }
    } else if (input instanceof Input.FactsRead f) {
      if (f.facts() == null) {
        redisHealth.failed(f.answeredNanos());
      } else {
        redisHealth.answered(
            f.sentNanos(), f.answeredNanos(), f.facts().incarnation(), f.facts().redisMillis());
        redisHealth.facts(f.facts());
      }
    }
  }

  private void carryOut(Effect effect) {
    if (effect instanceof Effect.Open o) {
      gates.open(o);
    } else if (effect instanceof Effect.Close c) {
      gates.close(c.reason()); // every connection reset before the next effect, a let-go, runs
    } else if (effect instanceof HoldCall call) {
      calls.accept(call, this);
    } else if (effect instanceof Effect.Log l) {
      if (l.warn()) {
        log.warn(l.message());
      } else {
        log.info(l.message());
      }
    }
  }
}
