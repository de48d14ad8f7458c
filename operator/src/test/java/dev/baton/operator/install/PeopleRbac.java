package dev.baton.operator.install;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.PolicyRuleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBindingBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a person may do once a namespace's admin bound them to one of Kubernetes' own roles (view,
 * edit, admin) and the chart is installed: the chart's roles for people are aggregated into those,
 * as the controller-manager aggregates them. Kubernetes' roles are modelled by their aggregation
 * rules and labels and by the part of their own rules the plugin's reads need (pods, their logs,
 * Events, Services, EndpointSlices), as Kubernetes' bootstrap policy defines them. For kubectl/'s
 * AggregatedRolesIT, which holds the plugin's requests against it.
 */
public final class PeopleRbac {

  private static final String AGGREGATE = "rbac.authorization.k8s.io/aggregate-to-";

  private final ChartRbac rbac;

  private PeopleRbac(ChartRbac rbac) {
    this.rbac = rbac;
  }

  /**
   * The chart rendered with {@code values}, and {@code user} bound to Kubernetes' {@code role}
   * (view, edit or admin) in {@code namespace} by a RoleBinding, as a namespace admin binds it.
   */
  public static PeopleRbac bound(String values, String namespace, String user, String role) {
    List<HasMetadata> objects = new ArrayList<>(HelmChart.render(values));
    objects.addAll(kubernetesRoles());
    objects.add(
        new RoleBindingBuilder()
            .withNewMetadata()
            .withName(user + "-" + role)
            .withNamespace(namespace)
            .endMetadata()
            .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", role)
            .addNewSubject()
            .withKind("User")
            .withApiGroup("rbac.authorization.k8s.io")
            .withName(user)
            .endSubject()
            .build());
    return new PeopleRbac(ChartRbac.ofUser(ChartRbac.aggregated(objects), user));
  }

  /** Null when the request is allowed, else why not. */
  public String refusal(String method, String pathAndQuery) {
    return rbac.refusal(ApiRequest.parse(method, pathAndQuery));
  }

  /** view, edit and admin: their aggregation, their labels, and the reads that matter here. */
  private static List<ClusterRole> kubernetesRoles() {
    PolicyRule reads =
        new PolicyRuleBuilder()
            .withApiGroups("")
            .withResources("pods", "pods/log", "pods/status", "events", "services", "endpoints")
            .withVerbs("get", "list", "watch")
            .build();
    PolicyRule slices =
        new PolicyRuleBuilder()
            .withApiGroups("discovery.k8s.io")
            .withResources("endpointslices")
            .withVerbs("get", "list", "watch")
            .build();
    return List.of(
        aggregating("view", Map.of(AGGREGATE + "edit", "true"), List.of(reads, slices)),
        aggregating("edit", Map.of(AGGREGATE + "admin", "true"), List.of()),
        aggregating("admin", Map.of(), List.of()));
  }

  private static ClusterRole aggregating(
      String name, Map<String, String> labels, List<PolicyRule> own) {
    return new ClusterRoleBuilder()
        .withNewMetadata()
        .withName(name)
        .withLabels(labels)
        .endMetadata()
        .withNewAggregationRule()
        .addNewClusterRoleSelector()
        .withMatchLabels(Map.of(AGGREGATE + name, "true"))
        .endClusterRoleSelector()
        .endAggregationRule()
        .withRules(own)
        .build();
  }
}
