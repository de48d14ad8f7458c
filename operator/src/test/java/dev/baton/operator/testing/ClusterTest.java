package dev.baton.operator.testing;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * An integration test with one embedded cluster per test ({@link
 * BatonClusterExtension#embedded()}), in {@link #cluster} before the test's own {@code @BeforeEach}
 * methods run (a superclass's run first), closed after its {@code @AfterEach} methods.
 */
public abstract class ClusterTest {

  @RegisterExtension protected final BatonClusterExtension baton = BatonClusterExtension.embedded();

  protected BatonCluster cluster;

  @BeforeEach
  protected void takeCluster(BatonCluster cluster) {
    this.cluster = cluster;
  }
}
