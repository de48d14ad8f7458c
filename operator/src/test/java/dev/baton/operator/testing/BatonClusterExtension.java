package dev.baton.operator.testing;

import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.FaultInjector;
import dev.baton.testkit.KubernetesUnderTest;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * One {@link BatonCluster} per test, owned by JUnit: created before the test class's own
 * {@code @BeforeEach} methods run, closed after its {@code @AfterEach} methods, whatever the test
 * did. Optionally with the operator started. The test's {@code @BeforeEach}, {@code @Test} and
 * {@code @AfterEach} methods take it as a parameter of type {@link BatonCluster}.
 *
 * <pre>{@code
 * @RegisterExtension final BatonClusterExtension baton = BatonClusterExtension.embedded();
 * private BatonCluster cluster;
 *
 * @BeforeEach
 * void setUp(BatonCluster cluster) {
 *   this.cluster = cluster;
 * }
 * }</pre>
 */
public final class BatonClusterExtension
    implements BeforeEachCallback, AfterEachCallback, ParameterResolver {

  private final Supplier<BatonCluster> factory;
  private final boolean startOperator;
  private BatonCluster cluster;

  private BatonClusterExtension(Supplier<BatonCluster> factory, boolean startOperator) {
    this.factory = factory;
    this.startOperator = startOperator;
  }

  /** On the API the environment asks for (embedded, or BATON_TEST_KUBECONFIG's cluster). */
  public static BatonClusterExtension embedded() {
    return new BatonClusterExtension(BatonCluster::new, false);
  }

  /** On an API the test starts itself, say with fault injection. */
  public static BatonClusterExtension on(Supplier<KubernetesUnderTest> kube) {
    return new BatonClusterExtension(() -> new BatonCluster(kube.get()), false);
  }

  /**
   * On an embedded API whose requests pass a {@link FaultInjector} (seed 1), set into {@code
   * faults} for each test, so the test can switch faults on and read the writes it saw.
   */
  public static BatonClusterExtension withFaults(AtomicReference<FaultInjector> faults) {
    return on(
        () ->
            EmbeddedKubernetes.start(
                real -> {
                  FaultInjector injector = new FaultInjector(real, 1);
                  faults.set(injector);
                  return injector;
                }));
  }

  /** The same, with the operator started before the test's {@code @BeforeEach} methods. */
  public BatonClusterExtension withOperator() {
    return new BatonClusterExtension(factory, true);
  }

  /** The current test's cluster. */
  public BatonCluster cluster() {
    if (cluster == null) {
      throw new IllegalStateException("no cluster outside a test");
    }
    return cluster;
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    cluster = factory.get();
    if (startOperator) {
      cluster.startOperator();
    }
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == BatonCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return cluster();
  }

  @Override
  public void afterEach(ExtensionContext context) {
    if (cluster != null) {
      cluster.close();
      cluster = null;
    }
  }
}
