package dev.baton.client;

import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Thread factories for Baton's own pools: named, for thread dumps, and daemon, so that a pool
 * nobody closed never keeps a process alive. One place for the client, the operator and the agent.
 */
public final class DaemonThreads {

  private DaemonThreads() {}

  /** Every thread gets {@code name}. */
  public static ThreadFactory named(String name) {
    return r -> daemon(r, name);
  }

  /** Threads named {@code prefix} followed by 1, 2, 3, ... */
  public static ThreadFactory numbered(String prefix) {
    AtomicInteger count = new AtomicInteger();
    return r -> daemon(r, prefix + count.incrementAndGet());
  }

  private static Thread daemon(Runnable r, String name) {
    Thread t = new Thread(r, name);
    t.setDaemon(true);
    return t;
  }
}
