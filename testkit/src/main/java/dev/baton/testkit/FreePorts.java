package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;

/** A TCP port free at the time of asking, for a server a test or benchmark starts. */
public final class FreePorts {

  private FreePorts() {}

  public static int any() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port", e);
    }
  }
}
