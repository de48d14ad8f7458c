package dev.baton.agent.testing;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * What a test opened, in its fields and helpers at different times, closed at its end the last
 * first, as nested try-with-resources would close it.
 */
public final class Closing implements AutoCloseable {

  private final List<AutoCloseable> opened = new CopyOnWriteArrayList<>();

  /** {@code c}, to be closed before everything added earlier. */
  public <T extends AutoCloseable> T add(T c) {
    opened.add(c);
    return c;
  }

  @Override
  public void close() throws Exception {
    for (int i = opened.size() - 1; i >= 0; i--) {
      opened.get(i).close();
    }
  }
}
