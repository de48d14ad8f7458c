package dev.baton.operator.testing;

import dev.baton.testkit.FaultInjector;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An integration test on an embedded cluster whose API requests pass a {@link FaultInjector}
 * ({@link BatonClusterExtension#withFaults}): the injector of the current test in {@link #faults},
 * its cluster in {@link #cluster} before the test's own {@code @BeforeEach} methods run.
 */
public abstract class FaultClusterTest {

  protected final AtomicReference<FaultInjector> faults = new AtomicReference<>();

  @RegisterExtension
  protected final BatonClusterExtension baton = BatonClusterExtension.withFaults(faults);

  protected BatonCluster cluster;

  @BeforeEach
  protected void takeCluster(BatonCluster cluster) {
    this.cluster = cluster;
  }
}
