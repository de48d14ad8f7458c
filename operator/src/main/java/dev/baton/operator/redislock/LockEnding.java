package dev.baton.operator.redislock;

import dev.baton.client.LockView;
import java.time.Duration;
import java.util.List;

/** How one RedisLock reconcile ended, as the reconciler tells {@link LockReporter} once. */
sealed interface LockEnding {

  /** A spec or Secret the operator cannot use: looked at again after {@code retry}. */
  record Invalid(String reason, String message, Duration retry) implements LockEnding {}

  /** The read found no majority of instances answering: nothing was planned. */
  record Unreachable(LockSettings settings, LockView view) implements LockEnding {}

  /**
   * A plan was carried out, to its end or not.
   *
   * @param read Redis as the reconcile read it, at {@code readAtNanos} (System.nanoTime)
   * @param dead the values of gone pods still holding in the world the plan was made from
   */
  record Carried(
      LockSettings settings,
      LockView read,
      long readAtNanos,
      LockActuator.Outcome outcome,
      List<String> dead)
      implements LockEnding {}
}
