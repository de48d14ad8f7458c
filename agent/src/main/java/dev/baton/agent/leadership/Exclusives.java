package dev.baton.agent.leadership;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An agent's gates and observers ({@link Exclusive}), told what the decision decided: opened, given
 * a later deadline, or closed. Keeps nothing of its own: the decision's {@link GateState} is the
 * one record of whether they are open. Used on the leadership loop alone.
 */
final class Exclusives {

  private static final Logger log = LoggerFactory.getLogger(Exclusives.class);

  private final List<Exclusive> exclusives = new CopyOnWriteArrayList<>();

  void add(Exclusive exclusive) {
    exclusives.add(exclusive);
  }

  void open(Effect.Open o) {
    exclusives.forEach(e -> e.openUntil(o.untilNanos()));
    if (o.opens()) {
      log.info("leading with term {}: gates open", o.term());
      exclusives.forEach(e -> e.opened(o.term()));
    }
  }

  /** Every connection reset by the time this returns. */
  void close(String reason) {
    // In reverse: whoever was told first of the opening (an observer) hears last of the closing.
    List<Exclusive> all = List.copyOf(exclusives);
    for (int i = all.size() - 1; i >= 0; i--) {
      try {
        all.get(i).closed(reason);
      } catch (RuntimeException ex) {
        log.warn("closing failed", ex);
      }
    }
    log.info("no longer leading ({}): gates closed", reason);
  }
}
