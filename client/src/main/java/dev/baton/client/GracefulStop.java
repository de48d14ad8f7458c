package dev.baton.client;

import sun.misc.Signal;

/**
 * How the operator and the agent stop: {@code stop} runs on every exit of the JVM, and SIGTERM, the
 * kubelet's way of stopping a container, ends the process with status 0 once it has. A JVM left to
 * its default exits 143 on SIGTERM, and Kubernetes then shows every graceful stop as a container
 * terminated with Error.
 */
public final class GracefulStop {

  private GracefulStop() {}

  /** Runs {@code stop} on exit; on SIGTERM, exits 0 after it. */
  public static void install(String name, Runnable stop) {
    Runtime.getRuntime().addShutdownHook(new Thread(stop, name));
    try {
      // The shutdown hooks, ours among them, run inside exit, before the status is returned.
      Signal.handle(new Signal("TERM"), signal -> System.exit(0));
    } catch (IllegalArgumentException e) {
      // No SIGTERM on this platform: the shutdown hook alone.
    }
  }
}
