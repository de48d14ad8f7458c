package dev.baton.agent.gate;

import java.nio.ByteBuffer;
import java.util.concurrent.Semaphore;

/**
 * A copy of the client's bytes that a relay sent to a leader's gate before that gate said whether
 * it passes them on ({@link Gate#PASSING}): if the gate hands the connection back instead ({@link
 * Gate#HANDED_BACK}), they go to the next holder's gate first. At most one read's worth (16 KiB),
 * each copy taking one of the relay's buffers from the budget its loops share, so that connections
 * waiting on a silent gate cannot take the agent's heap; with none left, a read is passed on
 * without a copy and its connection goes with that gate, as a direct one does.
 */
final class Unpassed {

  private final byte[] bytes;
  private final Semaphore budget;
  private boolean released;

  private Unpassed(byte[] bytes, Semaphore budget) {
    this.bytes = bytes;
    this.budget = budget;
  }

  /** A copy of what remains of {@code b} (left as it is), or null when the budget is spent. */
  static Unpassed keep(ByteBuffer b, Semaphore budget) {
    if (!budget.tryAcquire()) {
      return null;
    }
    byte[] copy = new byte[b.remaining()];
    b.duplicate().get(copy);
    return new Unpassed(copy, budget);
  }

  /** The bytes, to write from the start. */
  ByteBuffer bytes() {
    return ByteBuffer.wrap(bytes);
  }

  int size() {
    return bytes.length;
  }

  /** Gives its buffer back to the budget; once, whoever holds it last. */
  synchronized void release() {
    if (!released) {
      released = true;
      budget.release();
    }
  }
}
