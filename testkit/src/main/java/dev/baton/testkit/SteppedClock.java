package dev.baton.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A wall clock a test can step for a redis-server it starts: a small library preloaded into the
 * server (native/clock-shim.c, compiled here with the machine's C compiler) moves its
 * CLOCK_REALTIME, gettimeofday and time by an offset this object writes, as an NTP step moves a
 * server's clock. The monotonic clocks are not touched.
 */
public final class SteppedClock implements AutoCloseable {

  private static Path library;

  private final Path offsetFile;
  private final RandomAccessFile file;
  private final MappedByteBuffer offset;

  public SteppedClock() {
    try {
      offsetFile = Files.createTempFile("baton-clock", ".offset");
      file = new RandomAccessFile(offsetFile.toFile(), "rw");
      file.setLength(Long.BYTES);
      offset = file.getChannel().map(FileChannel.MapMode.READ_WRITE, 0, Long.BYTES);
      offset.order(ByteOrder.nativeOrder());
      offset.putLong(0, 0);
    } catch (IOException e) {
      throw new IllegalStateException("cannot make the clock's offset file", e);
    }
  }

  /** What a redis-server started with it needs in its environment. */
  public Map<String, String> environment() {
    return Map.of(
        "LD_PRELOAD", library().toString(), "BATON_CLOCK_OFFSET_FILE", offsetFile.toString());
  }

  /** Moves the clock by {@code millis} (back when negative), at once. */
  public void step(long millis) {
    offset.putLong(0, offset.getLong(0) + millis);
  }

  /** The shim, compiled once per JVM with cc. */
  private static synchronized Path library() {
    if (library != null) {
      return library;
    }
    try (InputStream source = SteppedClock.class.getResourceAsStream("/native/clock-shim.c")) {
      Path dir = Files.createTempDirectory("baton-clock-shim");
      Path c = dir.resolve("clock-shim.c");
      Files.copy(source, c);
      Path so = dir.resolve("clock-shim.so");
      Process cc =
          new ProcessBuilder(
                  "cc", "-shared", "-fPIC", "-O2", "-o", so.toString(), c.toString(), "-ldl")
              .redirectErrorStream(true)
              .start();
      String out = new String(cc.getInputStream().readAllBytes());
      if (!cc.waitFor(60, TimeUnit.SECONDS) || cc.exitValue() != 0) {
        throw new IllegalStateException("cannot compile the clock shim: " + out);
      }
      library = so;
      return so;
    } catch (IOException e) {
      throw new IllegalStateException("cannot compile the clock shim (is cc installed?)", e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted", e);
    }
  }

  @Override
  public void close() {
    try {
      file.close();
      Files.deleteIfExists(offsetFile);
    } catch (IOException e) {
      // a temporary file
    }
  }
}
