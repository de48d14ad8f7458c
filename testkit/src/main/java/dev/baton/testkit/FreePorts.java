package dev.baton.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP port free at the time of asking, for a server a test or benchmark starts. Taken outside the
 * kernel's ephemeral range when it can: a port the kernel hands out (port 0) is also one it hands
 * to the next outgoing connection, and with many connections opening, one took a port between this
 * answer and the server binding it ("Address already in use").
 */
public final class FreePorts {

  private static final int[] RANGE = outsideEphemeral();
  private static final AtomicInteger NEXT =
      new AtomicInteger((int) (ProcessHandle.current().pid() * 7919 % 10_000));

  private FreePorts() {}

  public static int any() {
    if (RANGE != null) {
      int size = RANGE[1] - RANGE[0];
      for (int i = 0; i < size; i++) {
        int port = RANGE[0] + Math.floorMod(NEXT.getAndIncrement(), size);
        if (bindable(port)) {
          return port;
        }
      }
    }
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException("no free port", e);
    }
  }

  private static boolean bindable(int port) {
    try (ServerSocket s = new ServerSocket()) {
      s.setReuseAddress(false);
      s.bind(new InetSocketAddress(port));
      return true;
    } catch (IOException e) {
      return false;
    }
  }

  /** [low, high) below or above {@code ip_local_port_range}, or null when neither has room. */
  private static int[] outsideEphemeral() {
    int low = 32768;
    int high = 60999;
    try {
      String[] r =
          Files.readString(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).trim().split("\\s+");
      low = Integer.parseInt(r[0]);
      high = Integer.parseInt(r[1]);
    } catch (IOException | RuntimeException e) {
      // not Linux: assume its default range
    }
    if (low - 10_000 >= 5_000) {
      return new int[] {10_000, low};
    }
    if (65_535 - high >= 2_000) {
      return new int[] {high + 1, 65_536};
    }
    return null;
  }
}
