package dev.baton.kubectl;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.client.settings.PortNumber;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

/**
 * Where Baton's processes run, as the API server shows them: the active operator (the pod its Lease
 * names: a replica's identity is its pod name) and the agents beside a group's pods (a container
 * named {@code baton-agent}, or one that runs {@code /app/baton-agent} or is configured by {@code
 * BATON_AGENT_*} variables).
 */
final class BatonPods {

  static final String DEFAULT_OPERATOR_NAMESPACE = "baton-system";
  static final String DEFAULT_LEASE = "baton-operator";
  static final String AGENT_CONTAINER = "baton-agent";

  private BatonPods() {}

  /** The operator's Lease and the pod it names; throws {@link Refused} saying what is missing. */
  record Operator(Lease lease, Pod pod, String container) {}

  static Operator activeOperator(KubernetesClient client, String namespace, String leaseName) {
    Lease lease = client.leases().inNamespace(namespace).withName(leaseName).get();
    if (lease == null) {
      throw new Refused(
          "no Lease "
              + leaseName
              + " in namespace "
              + namespace
              + ": is the operator installed there (--operator-namespace, --lease), with leader"
              + " election on?");
    }
    String holder = lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
    if (holder == null || holder.isEmpty()) {
      throw new Refused(
          "the Lease " + namespace + "/" + leaseName + " names no holder: no operator is active");
    }
    Pod pod = client.pods().inNamespace(namespace).withName(holder).get();
    if (pod == null) {
      throw new Refused(
          "the Lease "
              + namespace
              + "/"
              + leaseName
              + " names "
              + holder
              + ", which is no pod there (an operator outside the cluster?)");
    }
    List<Container> containers = pod.getSpec().getContainers();
    String container =
        containers.stream()
            .map(Container::getName)
            .filter("operator"::equals)
            .findFirst()
            .orElse(containers.get(0).getName());
    return new Operator(lease, pod, container);
  }

  /** The group's candidate pods, by name. */
  static List<Pod> candidates(KubernetesClient client, LeaderGroup group) {
    if (group.getSpec().getSelector() == null) {
      return List.of();
    }
    return client
        .pods()
        .inNamespace(group.getMetadata().getNamespace())
        .withLabelSelector(group.getSpec().getSelector())
        .list()
        .getItems()
        .stream()
        .sorted(Comparator.comparing(p -> p.getMetadata().getName()))
        .toList();
  }

  /** The agent containers of a pod: native sidecars (init containers) and plain containers. */
  static List<Container> agents(Pod pod) {
    List<Container> all = new ArrayList<>();
    if (pod.getSpec() != null) {
      all.addAll(pod.getSpec().getInitContainers());
      all.addAll(pod.getSpec().getContainers());
    }
    return all.stream().filter(BatonPods::isAgent).toList();
  }

  private static boolean isAgent(Container c) {
    if (AGENT_CONTAINER.equals(c.getName())) {
      return true;
    }
    boolean runsAgent =
        Stream.concat(c.getCommand().stream(), c.getArgs().stream())
            .anyMatch(a -> a.endsWith("baton-agent") || a.endsWith("baton-agent.jar"));
    return runsAgent
        || c.getEnv().stream().map(EnvVar::getName).anyMatch(n -> n.startsWith("BATON_AGENT_"));
  }

  /** The agent's health port (BATON_AGENT_HEALTH_LISTEN), which serves /metrics; -1 when none. */
  static int healthPort(Container agent) {
    for (EnvVar e : agent.getEnv()) {
      if (e.getName().equals("BATON_AGENT_HEALTH_LISTEN") && e.getValue() != null) {
        String v = e.getValue();
        return PortNumber.parse(v.substring(v.lastIndexOf(':') + 1)).orElse(-1);
      }
    }
    return -1;
  }

  /** The last {@code lines} lines of a container's log. */
  static String tail(KubernetesClient client, Pod pod, String container, int lines) {
    var log =
        client
            .pods()
            .inNamespace(pod.getMetadata().getNamespace())
            .withName(pod.getMetadata().getName())
            .inContainer(container);
    return lines < 0 ? log.getLog() : log.tailingLines(lines).getLog();
  }
}
