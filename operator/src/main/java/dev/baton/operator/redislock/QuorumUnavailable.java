package dev.baton.operator.redislock;

import dev.baton.client.LockView;

/**
 * Too few Redis instances answered to decide anything: thrown by the read and by a renewal or
 * acquire whose answer shows it, with that answer.
 */
final class QuorumUnavailable extends RuntimeException {
  final transient LockView view;

  QuorumUnavailable(LockView view) {
    super(null, null, false, false);
    this.view = view;
  }

  /** The view, when a majority of instances answered in it. */
  static LockView require(LockView view) {
    if (!view.quorumReachable()) {
      throw new QuorumUnavailable(view);
    }
    return view;
  }
}
