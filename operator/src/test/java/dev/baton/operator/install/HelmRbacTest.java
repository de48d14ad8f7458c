package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The chart grants the operator's service account exactly the verbs the operator uses, where it
 * uses them, and nothing broader: no "*", no other resource, no cluster-wide grant of a namespaced
 * need when namespaces are listed.
 */
class HelmRbacTest {

  /** What the operator does in each watched namespace: API group (or ""), resource, verbs. */
  private static final String NAMESPACED =
      """
      ""                pods                     get list watch patch
      baton.dev         leadergroups             get list watch patch update
      baton.dev         leadergroups/status      get patch update
      baton.dev         leadergroups/finalizers  update
      baton.dev         redislocks               get list watch patch update
      baton.dev         redislocks/status        get patch update
      baton.dev         redislocks/finalizers    update
      ""                events                   create patch get list
      ""                secrets                  get
      ""                services                 get list watch create patch delete
      ""                endpoints                get list watch
      discovery.k8s.io  endpointslices           get list watch create patch delete
      """;

  /** What it reads cluster-wide, whatever namespaces it watches. */
  private static final String CLUSTER =
      """
      ""                    nodes                      get list watch
      apiextensions.k8s.io  customresourcedefinitions  get list
      """;

  /** Its own election, in the release namespace; a name after the verb limits it to that Lease. */
  private static final String LEADER_ELECTION =
      """
      coordination.k8s.io  leases  create
      coordination.k8s.io  leases  get:baton-operator update:baton-operator
      """;

  private static final String ALL = "*";

  @Test
  void grantsEachVerbClusterWideWhenWatchingAllNamespaces() {
    Set<Grant> granted = grantsToOperator(HelmChart.renderDefaults());

    Set<Grant> expected = new TreeSet<>();
    expected.addAll(table(NAMESPACED, ALL));
    expected.addAll(table(CLUSTER, ALL));
    expected.addAll(table(LEADER_ELECTION, HelmChart.NAMESPACE));
    assertThat(granted).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void grantsNamespacedVerbsOnlyInTheWatchedNamespaces() {
    List<HasMetadata> objects =
        HelmChart.render(
            """
            watchNamespaces: [team-a, team-b]
            """);
    Set<Grant> granted = grantsToOperator(objects);

    Set<Grant> expected = new TreeSet<>();
    expected.addAll(table(NAMESPACED, "team-a"));
    expected.addAll(table(NAMESPACED, "team-b"));
    expected.addAll(table(CLUSTER, ALL));
    expected.addAll(table(LEADER_ELECTION, HelmChart.NAMESPACE));
    assertThat(granted).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(Manifests.ofKind(objects, ClusterRole.class))
        .as("nodes and CRDs stay in one small ClusterRole")
        .singleElement()
        .satisfies(r -> assertThat(r.getRules()).hasSize(2));
  }

  @Test
  void grantsBothWhenTheReleaseNamespaceIsWatched() {
    Set<Grant> granted =
        grantsToOperator(
            HelmChart.render(
                """
                watchNamespaces: [baton-system, team-a]
                """));

    Set<Grant> expected = new TreeSet<>();
    expected.addAll(table(NAMESPACED, HelmChart.NAMESPACE));
    expected.addAll(table(NAMESPACED, "team-a"));
    expected.addAll(table(CLUSTER, ALL));
    expected.addAll(table(LEADER_ELECTION, HelmChart.NAMESPACE));
    assertThat(granted).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void grantsNoLeaseWithoutLeaderElection() {
    Set<Grant> granted =
        grantsToOperator(
            HelmChart.render(
                """
                replicaCount: 1
                leaderElection: {enabled: false}
                """));

    Set<Grant> expected = new TreeSet<>();
    expected.addAll(table(NAMESPACED, ALL));
    expected.addAll(table(CLUSTER, ALL));
    assertThat(granted).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void neverUsesWildcardsOrNonResourceUrls() {
    List<HasMetadata> objects =
        new ArrayList<>(
            HelmChart.render("", InstallFiles.CHART.resolve("ci/all-options-values.yaml")));
    objects.addAll(HelmChart.renderDefaults());

    List<PolicyRule> rules = new ArrayList<>();
    Manifests.ofKind(objects, ClusterRole.class).forEach(r -> rules.addAll(r.getRules()));
    Manifests.ofKind(objects, Role.class).forEach(r -> rules.addAll(r.getRules()));
    assertThat(rules).isNotEmpty();
    assertThat(rules)
        .allSatisfy(
            rule -> {
              assertThat(rule.getVerbs()).doesNotContain("*").isNotEmpty();
              assertThat(rule.getResources()).doesNotContain("*").isNotEmpty();
              assertThat(rule.getApiGroups()).doesNotContain("*").isNotEmpty();
              assertThat(rule.getNonResourceURLs()).isNullOrEmpty();
            });
    assertThat(Manifests.ofKind(objects, ClusterRole.class))
        .allSatisfy(r -> assertThat(r.getAggregationRule()).isNull());
  }

  @Test
  void rendersNoRbacWhenAskedNot() {
    assertThat(HelmChart.render("rbac: {create: false}"))
        .extracting(HasMetadata::getKind)
        .doesNotContain("Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding");
  }

  /** One (scope, group, resource, verb, name) the service account may do; scope "*": everywhere. */
  record Grant(String scope, String group, String resource, String verb, String name)
      implements Comparable<Grant> {
    @Override
    public int compareTo(Grant o) {
      return toString().compareTo(o.toString());
    }

    @Override
    public String toString() {
      return scope
          + " "
          + (group.isEmpty() ? "core" : group)
          + "/"
          + resource
          + " "
          + verb
          + (name.isEmpty() ? "" : ":" + name);
    }
  }

  private static Set<Grant> table(String table, String scope) {
    Set<Grant> grants = new TreeSet<>();
    for (String line : table.strip().split("\n")) {
      String[] cells = line.trim().split("\\s+");
      String group = cells[0].equals("\"\"") ? "" : cells[0];
      for (int i = 2; i < cells.length; i++) {
        String[] verbAndName = cells[i].split(":", 2);
        grants.add(
            new Grant(
                scope,
                group,
                cells[1],
                verbAndName[0],
                verbAndName.length > 1 ? verbAndName[1] : ""));
      }
    }
    return grants;
  }

  /**
   * What the chart's service account may do, following each binding to its role the way the API
   * server does: a ClusterRoleBinding grants everywhere, a RoleBinding only in its own namespace.
   */
  private static Set<Grant> grantsToOperator(List<HasMetadata> objects) {
    String account = HelmChart.fullname();
    Set<Grant> grants = new TreeSet<>();
    for (ClusterRoleBinding binding : Manifests.ofKind(objects, ClusterRoleBinding.class)) {
      if (bindsOperator(binding.getSubjects(), account)) {
        assertThat(binding.getRoleRef().getKind()).isEqualTo("ClusterRole");
        grants.addAll(expand(rulesOf(objects, binding.getRoleRef(), null), ALL));
      }
    }
    for (RoleBinding binding : Manifests.ofKind(objects, RoleBinding.class)) {
      if (bindsOperator(binding.getSubjects(), account)) {
        String namespace = binding.getMetadata().getNamespace();
        assertThat(namespace)
            .as("RoleBinding %s namespace", binding.getMetadata().getName())
            .isNotBlank();
        grants.addAll(expand(rulesOf(objects, binding.getRoleRef(), namespace), namespace));
      }
    }
    return grants;
  }

  private static boolean bindsOperator(List<Subject> subjects, String account) {
    assertThat(subjects)
        .as("every binding of the chart binds only its service account")
        .allSatisfy(
            s -> {
              assertThat(s.getKind()).isEqualTo("ServiceAccount");
              assertThat(s.getName()).isEqualTo(account);
              assertThat(s.getNamespace()).isEqualTo(HelmChart.NAMESPACE);
            });
    return !subjects.isEmpty();
  }

  private static List<PolicyRule> rulesOf(
      List<HasMetadata> objects, RoleRef ref, String namespace) {
    assertThat(ref.getApiGroup()).isEqualTo("rbac.authorization.k8s.io");
    if (ref.getKind().equals("ClusterRole")) {
      return Manifests.named(objects, ClusterRole.class, ref.getName()).getRules();
    }
    List<Role> roles =
        Manifests.ofKind(objects, Role.class).stream()
            .filter(r -> r.getMetadata().getName().equals(ref.getName()))
            .filter(r -> namespace.equals(r.getMetadata().getNamespace()))
            .collect(Collectors.toList());
    assertThat(roles).as("Role %s in %s", ref.getName(), namespace).hasSize(1);
    return roles.get(0).getRules();
  }

  private static Set<Grant> expand(List<PolicyRule> rules, String scope) {
    Set<Grant> grants = new TreeSet<>();
    for (PolicyRule rule : rules) {
      List<String> names =
          rule.getResourceNames() == null || rule.getResourceNames().isEmpty()
              ? List.of("")
              : rule.getResourceNames();
      for (String group : rule.getApiGroups()) {
        for (String resource : rule.getResources()) {
          for (String verb : rule.getVerbs()) {
            for (String name : names) {
              grants.add(new Grant(scope, group, resource, verb, name));
            }
          }
        }
      }
    }
    return grants;
  }
}
