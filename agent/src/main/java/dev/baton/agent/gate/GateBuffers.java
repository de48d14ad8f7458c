package dev.baton.agent.gate;

import java.nio.ByteBuffer;
import java.util.ArrayDeque;

/**
 * A loop's buffers: the one every read goes through, and the few that hold what a slower peer has
 * not taken yet, kept for reuse up to a bound. Used on the loop's thread only.
 */
final class GateBuffers {

  private static final int BUFFER = 16 * 1024;
  private static final int SPARE = 16;

  private final ByteBuffer through = ByteBuffer.allocateDirect(BUFFER);
  private final ArrayDeque<ByteBuffer> spare = new ArrayDeque<>();

  ByteBuffer through() {
    return through;
  }

  ByteBuffer take() {
    ByteBuffer b = spare.poll();
    return b != null ? b : ByteBuffer.allocateDirect(BUFFER);
  }

  void giveBack(ByteBuffer b) {
    if (b != null && spare.size() < SPARE) {
      b.clear();
      spare.push(b);
    }
  }
}
