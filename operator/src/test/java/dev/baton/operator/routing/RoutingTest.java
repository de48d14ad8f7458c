package dev.baton.operator.routing;

import static dev.baton.testkit.Sandbox.NS;

import dev.baton.operator.testing.ClusterTest;
import dev.baton.testkit.EndpointsController;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;

/**
 * A routing test: the payments world ({@link PaymentsRouting}) on the test's cluster, and the test
 * kit's EndpointSlice controller standing in for Kubernetes' own.
 */
abstract class RoutingTest extends ClusterTest {

  protected PaymentsRouting payments;
  protected EndpointsController endpoints;

  @BeforeEach
  void startRouting() {
    payments = new PaymentsRouting(cluster);
    endpoints = new EndpointsController(cluster.client, NS);
  }

  @AfterEach
  void stopRouting() {
    endpoints.close();
  }
}
