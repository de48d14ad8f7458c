package dev.baton.client;

import java.time.Duration;

/**
 * When a pod watch that failed is asked for again, and how often the pod is read while the watch is
 * not open (docs/design.md, "Applications that know they lead"). A new pod's first connection to
 * the API server can time out, so the first retry comes within 100 ms, then later and later up to a
 * cap. Until the watch opens, reads come often enough that a promotion is seen within 100 ms; but a
 * watch the server answered with a refusal (403 for want of the verb, 429 for too many requests) is
 * a server that has spoken, and reading it faster would only add to its load: reads then keep their
 * usual pace.
 */
final class WatchRetry {

  /** The first retry after a failure. */
  static final Duration FIRST = Duration.ofMillis(50);

  /**
   * The longest wait between two watches that got no answer (a connection that never got through).
   */
  static final Duration CAP_UNANSWERED = Duration.ofSeconds(5);

  /** The longest wait between two watches the server refused. */
  static final Duration CAP_REFUSED = Duration.ofSeconds(30);

  /**
   * How often the pod is read while its watch is not open for want of an answer: a label lands
   * within this, plus one read's round trip (a GET is under 25 ms 97 % of the time on a real API
   * server), of being seen.
   */
  static final Duration READ_EVERY_UNWATCHED = Duration.ofMillis(70);

  private WatchRetry() {}

  /** The wait before the next watch, after {@code failuresInARow} failures (1 for the first). */
  static Duration after(int failuresInARow, BatonLeadership.WatchState state) {
    Duration cap = state == BatonLeadership.WatchState.REFUSED ? CAP_REFUSED : CAP_UNANSWERED;
    int doublings = Math.min(Math.max(failuresInARow, 1) - 1, 20);
    Duration wait = FIRST.multipliedBy(1L << doublings);
    return wait.compareTo(cap) > 0 ? cap : wait;
  }

  /** How long from one read of the pod to the next while the watch stands so. */
  static Duration readEvery(BatonLeadership.WatchState state, Duration confirmEvery) {
    boolean unwatched =
        state == BatonLeadership.WatchState.OPENING || state == BatonLeadership.WatchState.BROKEN;
    return unwatched && READ_EVERY_UNWATCHED.compareTo(confirmEvery) < 0
        ? READ_EVERY_UNWATCHED
        : confirmEvery;
  }
}
