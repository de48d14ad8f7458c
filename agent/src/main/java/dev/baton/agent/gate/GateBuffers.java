package dev.baton.agent.gate;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * A loop's buffers: the one every read goes through, and the few that hold what a slower peer has
 * not taken yet, a few kept for reuse. The loops of one gate share one budget of those: a client
 * that stops reading pins one until its peer's bytes drain, and without a bound a crowd of such
 * clients would take the agent's memory, whatever the number of loops. Used on the loop's thread
 * only, but for the shared budget.
 */
final class GateBuffers {

  static final int BUFFER = 16 * 1024;
  private static final int SPARE = 4;

  private final ByteBuffer through = ByteBuffer.allocateDirect(BUFFER);
  private final ArrayDeque<ByteBuffer> spare = new ArrayDeque<>();
  private final java.util.concurrent.Semaphore budget;
  private int out;

  /**
   * @param budget the buffers the gate's loops may hold at once, shared by them
   */
  GateBuffers(java.util.concurrent.Semaphore budget) {
    this.budget = budget;
  }

  ByteBuffer through() {
    return through;
  }

  /** A buffer for a slower peer's bytes, or null when the gate's budget is spent. */
  ByteBuffer take() {
    if (!budget.tryAcquire()) {
      return null;
    }
    out++;
    ByteBuffer b = spare.poll();
    return b != null ? b : ByteBuffer.allocateDirect(BUFFER);
  }

  void giveBack(ByteBuffer b) {
    if (b == null) {
      return;
    }
    out--;
    budget.release();
    if (spare.size() < SPARE) {
      b.clear();
      spare.push(b);
    }
  }

  /** How many buffers of this loop hold a slower peer's bytes now. */
  int out() {
    return out;
  }
}
