package dev.baton.agent.leadership;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An agent's gates and observers, set to what the rule decided: opened, given a later deadline, or
 * closed. Used on the leadership loop alone.
 */
final class GateSwitch {

  private static final Logger log = LoggerFactory.getLogger(GateSwitch.class);

  private final List<Exclusive> exclusives = new CopyOnWriteArrayList<>();
  private boolean open;
  private long openUntilNanos;

  void add(Exclusive exclusive) {
    exclusives.add(exclusive);
  }

  boolean isOpen() {
    return open;
  }

  long openUntilNanos() {
    return openUntilNanos;
  }

  /** Open until {@code untilNanos}, with {@code term}; true when this opened them. */
  boolean openUntil(long untilNanos, long term) {
    if (!open || untilNanos != openUntilNanos) {
      openUntilNanos = untilNanos;
      exclusives.forEach(e -> e.openUntil(untilNanos));
    }
    if (open) {
      return false;
    }
    open = true;
    log.info("leading with term {}: gates open", term);
    exclusives.forEach(e -> e.opened(term));
    return true;
  }

  /** Closed: every connection reset by the time this returns; true when this closed them. */
  boolean close(String reason) {
    if (!open) {
      return false;
    }
    open = false;
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
    return true;
  }
}
