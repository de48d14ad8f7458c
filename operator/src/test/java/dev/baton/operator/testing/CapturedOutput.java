package dev.baton.operator.testing;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Copies everything written to System.out and System.err (logs included) while it is open. */
public final class CapturedOutput implements AutoCloseable {

  private final PrintStream originalOut = System.out;
  private final PrintStream originalErr = System.err;
  private final ByteArrayOutputStream buffer = new ByteArrayOutputStream();

  public CapturedOutput() {
    System.setOut(new PrintStream(new Tee(originalOut, buffer), true, StandardCharsets.UTF_8));
    System.setErr(new PrintStream(new Tee(originalErr, buffer), true, StandardCharsets.UTF_8));
  }

  public synchronized String text() {
    return buffer.toString(StandardCharsets.UTF_8);
  }

  @Override
  public void close() {
    System.setOut(originalOut);
    System.setErr(originalErr);
  }

  private static final class Tee extends OutputStream {
    private final OutputStream a;
    private final ByteArrayOutputStream b;

    Tee(OutputStream a, ByteArrayOutputStream b) {
      this.a = a;
      this.b = b;
    }

    @Override
    public void write(int c) {
      try {
        a.write(c);
      } catch (java.io.IOException ignored) {
        // the console went away; the copy is what the test reads
      }
      synchronized (b) {
        b.write(c);
      }
    }

    @Override
    public void write(byte[] bytes, int off, int len) {
      try {
        a.write(bytes, off, len);
      } catch (java.io.IOException ignored) {
        // as above
      }
      synchronized (b) {
        b.write(bytes, off, len);
      }
    }
  }
}
