package dev.baton.operator.install;

import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * The chart values that start the operator with a given environment: the namespaces it watches,
 * whether it elects an active replica, the release namespace (where its Lease is), the webhook, and
 * per-group Redis users.
 */
record ChartInstall(
    List<String> watchNamespaces,
    boolean leaderElection,
    String namespace,
    String leaseName,
    boolean webhook,
    boolean redisUsers) {

  static ChartInstall matching(Map<String, String> env) {
    String namespaces = env.get("BATON_NAMESPACES");
    List<String> watched =
        namespaces == null || namespaces.isBlank()
            ? List.of()
            : Arrays.stream(namespaces.split(",")).map(String::trim).toList();
    boolean election = Boolean.parseBoolean(env.getOrDefault("BATON_LEADER_ELECTION", "false"));
    String namespace =
        election
            ? env.getOrDefault("BATON_LEADER_ELECTION_NAMESPACE", HelmChart.NAMESPACE)
            : HelmChart.NAMESPACE;
    boolean webhook = Boolean.parseBoolean(env.getOrDefault("BATON_WEBHOOK_ENABLED", "false"));
    return new ChartInstall(
        watched,
        election,
        namespace,
        env.getOrDefault("BATON_LEADER_ELECTION_LEASE_NAME", ""),
        webhook,
        Boolean.parseBoolean(env.getOrDefault("BATON_REDIS_ACL_PER_GROUP", "false")));
  }

  String values() {
    StringBuilder v = new StringBuilder();
    if (!watchNamespaces.isEmpty()) {
      v.append("watchNamespaces: [").append(String.join(", ", watchNamespaces)).append("]\n");
    }
    if (!leaderElection) {
      v.append("replicaCount: 1\nleaderElection: {enabled: false}\n");
    } else if (!leaseName.isEmpty()) {
      v.append("leaderElection: {enabled: true, leaseName: ").append(leaseName).append("}\n");
    }
    if (!webhook) {
      v.append("webhook: {enabled: false}\n");
    }
    if (redisUsers) {
      v.append("redisAcl: {perGroupUsers: true}\n");
    }
    return v.toString();
  }

  ChartRbac rbac() {
    return ChartRbac.of(HelmChart.render(namespace, values()), HelmChart.fullname(), namespace);
  }

  @Override
  public String toString() {
    return "helm install --namespace "
        + namespace
        + (values().isEmpty()
            ? " (default values)"
            : " with values " + values().replace("\n", "; "));
  }
}
