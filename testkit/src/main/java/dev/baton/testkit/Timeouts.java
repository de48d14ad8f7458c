package dev.baton.testkit;

import java.time.Duration;

/** How long tests wait for what the system under test does on its own. */
public final class Timeouts {

  /**
   * The wait for a reconcile, a watch event, a failover: generous, so that a loaded 2-core CI
   * machine is never the reason a test fails; a test that passes waits only as long as it must.
   */
  public static final Duration WAIT = Duration.ofSeconds(20);

  /** For what takes several slow rounds: a Sentinel or Redis Cluster failover, a profiled API. */
  public static final Duration LONG_WAIT = Duration.ofSeconds(30);

  private Timeouts() {}
}
