package dev.baton.agent.testing;

import dev.baton.agent.leadership.Exclusive;
import java.util.ArrayList;
import java.util.List;

/**
 * Records when each agent's gates open and close, by this JVM's monotonic clock, and finds any
 * instant at which two were open. An agent's recorder is told of an opening before its gates open
 * and of a closing after they closed, so the recorded spans cover the real ones.
 */
public final class GateRecorder {

  /** One span during which a pod's gates were open; {@code closedAt} is MAX while open. */
  public record Span(String pod, long term, long openedAt, long closedAt) {}

  private final List<Span> spans = new ArrayList<>();

  /** The observer to pass to one agent. */
  public Exclusive forPod(String pod) {
    return new Exclusive() {
      @Override
      public void opened(long term) {
        synchronized (spans) {
          spans.add(new Span(pod, term, System.nanoTime(), Long.MAX_VALUE));
        }
      }

      @Override
      public void closed(String reason) {
        long now = System.nanoTime();
        synchronized (spans) {
          for (int i = spans.size() - 1; i >= 0; i--) {
            Span s = spans.get(i);
            if (s.pod().equals(pod) && s.closedAt() == Long.MAX_VALUE) {
              spans.set(i, new Span(pod, s.term(), s.openedAt(), now));
              return;
            }
          }
        }
      }
    };
  }

  public List<Span> spans() {
    synchronized (spans) {
      return List.copyOf(spans);
    }
  }

  /** Pairs of spans of different pods that overlap; empty when exclusion held throughout. */
  public List<String> overlaps() {
    List<Span> all = spans();
    List<String> out = new ArrayList<>();
    for (int i = 0; i < all.size(); i++) {
      for (int j = i + 1; j < all.size(); j++) {
        Span a = all.get(i);
        Span b = all.get(j);
        if (!a.pod().equals(b.pod())
            && a.openedAt() < b.closedAt()
            && b.openedAt() < a.closedAt()) {
          out.add(a + " overlaps " + b);
        }
      }
    }
    return out;
  }

  /** When {@code pod}'s gates last opened, or empty. */
  public java.util.OptionalLong lastOpened(String pod) {
    List<Span> all = spans();
    for (int i = all.size() - 1; i >= 0; i--) {
      if (all.get(i).pod().equals(pod)) {
        return java.util.OptionalLong.of(all.get(i).openedAt());
      }
    }
    return java.util.OptionalLong.empty();
  }
}
