package dev.baton.testkit;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;

/**
 * Starts an operator in this process (the test kit does not depend on the operator: whoever builds
 * a {@link Sandbox} passes {@code BatonOperator::launch}).
 */
@FunctionalInterface
public interface OperatorLauncher {

  /**
   * @param env the operator's environment variables
   * @param client a client of the sandbox's API, the operator's own
   * @return the running operator; closing it stops it
   */
  AutoCloseable start(Map<String, String> env, KubernetesClient client) throws Exception;
}
