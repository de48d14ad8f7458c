package dev.baton.testkit;

import java.io.IOException;

/** POSIX signals to a child process: SIGSTOP freezes it where it is, SIGCONT lets it run on. */
public final class Signals {

  private Signals() {}

  public static void send(Process process, String signal) {
    if (process == null || !process.isAlive()) {
      return;
    }
    try {
      int exit =
          new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
              .inheritIO()
              .start()
              .waitFor();
      if (exit != 0) {
        throw new IllegalStateException("kill -" + signal + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new IllegalStateException("cannot send SIG" + signal + ": " + e.getMessage(), e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
