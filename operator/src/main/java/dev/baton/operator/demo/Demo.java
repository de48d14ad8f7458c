package dev.baton.operator.demo;

import java.io.PrintStream;

/** The no-cluster demo. */
public final class Demo {
  private Demo() {}

  public static int run(PrintStream out) {
    out.println("demo: not yet");
    return 1;
  }
}
