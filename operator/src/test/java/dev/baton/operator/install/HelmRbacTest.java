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
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The chart grants the operator's service account what its README documents, where it documents it,
 * and nothing broader: no "*", no other resource, no cluster-wide grant of a namespaced need when
 * namespaces are listed. That the operator needs no more is ChartRbacAudit's part: every request it
 * makes in the integration tests is held against these rules.
 */
class HelmRbacTest {

  /**
   * The chart README's table "What the RBAC grants", where each row is a resource and its verbs in
   * one place: "watched namespaces", "cluster" or "release namespace". It documents the rules;
   * ChartRbacAudit holds the operator's requests against the rendered rules themselves.
   */
  private static final List<String[]> DOCUMENTED = readmeTable();

  private static List<String[]> readmeTable() {
    List<String[]> rows = new ArrayList<>();
    boolean inTable = false;
    try {
      for (String line : Files.readAllLines(InstallFiles.CHART.resolve("README.md"))) {
        if (line.startsWith("| where | API group | resource | verbs |")) {
          inTable = true;
        } else if (inTable && line.startsWith("| ---")) {
          continue;
        } else if (inTable && line.startsWith("|")) {
          String[] cells = line.split("\\|");
          rows.add(
              new String[] {cells[1].trim(), cells[2].trim(), cells[3].trim(), cells[4].trim()});
        } else if (inTable) {
          break;
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    assertThat(rows).as("the RBAC table in the chart's README").isNotEmpty();
    return rows;
  }

  /**
   * The documented grants of one place ("watched namespaces", ...) as they apply in {@code scope}.
   */
  private static Set<Grant> documented(String where, String scope) {
    Set<Grant> grants = new TreeSet<>();
    for (String[] row : DOCUMENTED) {
      if (!row[0].equals(where)) {
        continue;
      }
      String group = row[1].replace("`", "").replace("\"\"", "");
      String[] resourceAndName = row[2].replace("`", "").split(" named ");
      String name =
          resourceAndName.length > 1
              ? resourceAndName[1]
                  .trim()
                  .replace("<fullname>", HelmChart.fullname())
                  .replace("<namespace>", HelmChart.NAMESPACE)
              : "";
      for (String verb : row[3].split(",")) {
        grants.add(new Grant(scope, group, resourceAndName[0].trim(), verb.trim(), name));
      }
    }
    assertThat(grants).as("README rows for " + where).isNotEmpty();
    return grants;
  }

  private static final String NAMESPACED = "watched namespaces";
  private static final String CLUSTER = "cluster";
  private static final String LEADER_ELECTION = "release namespace";
  private static final String WEBHOOK_NAMESPACED = "watched namespaces (webhook)";
  private static final String WEBHOOK_CLUSTER = "cluster (webhook)";
  private static final String WEBHOOK_RELEASE = "release namespace (webhook)";

  /** The webhook's grants (on by default) where the namespaced ones go to {@code scopes}. */
  private static Set<Grant> webhook(String... scopes) {
    Set<Grant> grants = new TreeSet<>();
    for (String scope : scopes) {
      grants.addAll(documented(WEBHOOK_NAMESPACED, scope));
    }
    grants.addAll(documented(WEBHOOK_CLUSTER, ALL));
    grants.addAll(documented(WEBHOOK_RELEASE, HelmChart.NAMESPACE));
    return grants;
  }

  private static final String ALL = "*";

  @Test
  void grantsEachVerbClusterWideWhenWatchingAllNamespaces() {
    Set<Grant> granted = grantsToOperator(HelmChart.renderDefaults());

    Set<Grant> expected = new TreeSet<>();
    expected.addAll(documented(NAMESPACED, ALL));
    expected.addAll(documented(CLUSTER, ALL));
    expected.addAll(documented(LEADER_ELECTION, HelmChart.NAMESPACE));
    expected.addAll(webhook(ALL));
    assertThat(granted).containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void grantsNothingOfTheWebhookWithoutItAndOnlyTheAgentsObjectsWithCertManager() {
    Set<Grant> off = grantsToOperator(HelmChart.render("webhook: {enabled: false}"));
    Set<Grant> expected = new TreeSet<>();
    expected.addAll(documented(NAMESPACED, ALL));
    expected.addAll(documented(CLUSTER, ALL));
    expected.addAll(documented(LEADER_ELECTION, HelmChart.NAMESPACE));
    assertThat(off).containsExactlyInAnyOrderElementsOf(expected);

    Set<Grant> certManager =
        grantsToOperator(HelmChart.render("webhook: {certManager: {enabled: true}}"));
    expected.addAll(documented(WEBHOOK_NAMESPACED, ALL));
    assertThat(certManager).containsExactlyInAnyOrderElementsOf(expected);
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
    expected.addAll(documented(NAMESPACED, "team-a"));
    expected.addAll(documented(NAMESPACED, "team-b"));
    expected.addAll(documented(CLUSTER, ALL));
    expected.addAll(documented(LEADER_ELECTION, HelmChart.NAMESPACE));
    expected.addAll(webhook("team-a", "team-b"));
    assertThat(granted).containsExactlyInAnyOrderElementsOf(expected);
    assertThat(Manifests.ofKind(objects, ClusterRole.class))
        .filteredOn(r -> !r.getMetadata().getName().endsWith("-view"))
        .filteredOn(r -> !r.getMetadata().getName().endsWith("-edit"))
        .as(
            "nodes and the webhook's configuration: two small ClusterRoles of one rule each"
                + " (besides the roles for people)")
        .hasSize(2)
        .allSatisfy(r -> assertThat(r.getRules()).hasSize(1));
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
    expected.addAll(documented(NAMESPACED, HelmChart.NAMESPACE));
    expected.addAll(documented(NAMESPACED, "team-a"));
    expected.addAll(documented(CLUSTER, ALL));
    expected.addAll(documented(LEADER_ELECTION, HelmChart.NAMESPACE));
    expected.addAll(webhook(HelmChart.NAMESPACE, "team-a"));
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
    expected.addAll(documented(NAMESPACED, ALL));
    expected.addAll(documented(CLUSTER, ALL));
    expected.addAll(webhook(ALL));
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
