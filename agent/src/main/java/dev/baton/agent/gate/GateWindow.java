package dev.baton.agent.gate;

/**
 * Whether a gate may pass a byte on at a given moment: open, and not past the deadline its hold
 * allows. One pure rule, which the gate's event loops apply after every wake-up and before every
 * write, the leader-only gate applies before it takes a relay, and the gate model checks.
 *
 * @param bounded whether {@code untilNanos} applies (it is told before the gate opens)
 * @param untilNanos the deadline, by {@link System#nanoTime()}
 */
public record GateWindow(boolean open, boolean bounded, long untilNanos) {

  public static final GateWindow SHUT = new GateWindow(false, false, 0);

  public boolean mayRelay(long nowNanos) {
    return open && (!bounded || nowNanos - untilNanos < 0);
  }

  public GateWindow until(long nanos) {
    return new GateWindow(open, true, nanos);
  }

  public GateWindow opened() {
    return new GateWindow(true, bounded, untilNanos);
  }

  public GateWindow shut() {
    return new GateWindow(false, bounded, untilNanos);
  }
}
