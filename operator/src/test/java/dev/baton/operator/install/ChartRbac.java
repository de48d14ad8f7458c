package dev.baton.operator.install;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;

/**
 * What the chart's RBAC lets the operator's service account do, decided as the API server's RBAC
 * authorizer decides it: a ClusterRoleBinding grants its rules everywhere, a RoleBinding only in
 * its own namespace (never cluster-scoped requests or lists across all namespaces); a rule matches
 * on verb, API group, "resource/subresource" and, when it lists resourceNames, on the name the
 * request carries (none for create or a list without a name field selector). Besides the chart's
 * rules, every authenticated user may read discovery and review its own access, as Kubernetes'
 * default roles system:discovery and system:basic-user allow. ClusterRoles with an aggregation rule
 * get the rules of every ClusterRole their selectors match, as the controller-manager's ClusterRole
 * aggregation writes them ({@link #aggregated}).
 */
final class ChartRbac {

  /** A rule and where it applies: null for everywhere (a ClusterRoleBinding), else a namespace. */
  private record Grant(String namespace, PolicyRule rule, String from) {}

  private static final Set<String> DISCOVERY_PREFIXES =
      Set.of("/api", "/apis", "/version", "/openapi", "/healthz", "/livez", "/readyz");

  private final List<Grant> grants;

  private ChartRbac(List<Grant> grants) {
    this.grants = grants;
  }

  /** The grants to the chart's service account among these rendered objects. */
  static ChartRbac of(List<HasMetadata> objects, String account, String accountNamespace) {
    return bound(
        objects,
        s ->
            "ServiceAccount".equals(s.getKind())
                && account.equals(s.getName())
                && accountNamespace.equals(s.getNamespace()));
  }

  /** The grants to a person (a subject of kind User), e.g. one kubectl acts as with --as. */
  static ChartRbac ofUser(List<HasMetadata> objects, String user) {
    return bound(objects, s -> "User".equals(s.getKind()) && user.equals(s.getName()));
  }

  private static ChartRbac bound(List<HasMetadata> objects, Predicate<Subject> subject) {
    List<Grant> grants = new ArrayList<>();
    for (ClusterRoleBinding b : Manifests.ofKind(objects, ClusterRoleBinding.class)) {
      if (binds(b.getSubjects(), subject)) {
        for (PolicyRule rule : rules(objects, b.getRoleRef(), null)) {
          grants.add(new Grant(null, rule, "ClusterRoleBinding " + b.getMetadata().getName()));
        }
      }
    }
    for (RoleBinding b : Manifests.ofKind(objects, RoleBinding.class)) {
      String ns = b.getMetadata().getNamespace();
      if (binds(b.getSubjects(), subject)) {
        for (PolicyRule rule : rules(objects, b.getRoleRef(), ns)) {
          grants.add(new Grant(ns, rule, "RoleBinding " + ns + "/" + b.getMetadata().getName()));
        }
      }
    }
    return new ChartRbac(grants);
  }

  /** Null when the request is allowed, else why not. */
  String refusal(ApiRequest r) {
    if (!r.isResourceRequest()) {
      boolean discovery =
          r.verb().equals("get")
              && DISCOVERY_PREFIXES.stream()
                  .anyMatch(p -> r.path().equals(p) || r.path().startsWith(p + "/"));
      return discovery ? null : "a non-resource request the chart does not grant";
    }
    if (r.group().equals("authorization.k8s.io")
        && r.verb().equals("create")
        && r.resource().startsWith("selfsubject")) {
      return null;
    }
    for (Grant g : grants) {
      if (g.namespace() != null && !g.namespace().equals(r.namespace())) {
        continue;
      }
      if (allows(g.rule(), r)) {
        return null;
      }
    }
    return "no rule of the chart allows it";
  }

  private static boolean allows(PolicyRule rule, ApiRequest r) {
    return (rule.getVerbs().contains("*") || rule.getVerbs().contains(r.verb()))
        && (rule.getApiGroups().contains("*") || rule.getApiGroups().contains(r.group()))
        && resourceMatches(rule.getResources(), r)
        && (rule.getResourceNames() == null
            || rule.getResourceNames().isEmpty()
            || (!r.name().isEmpty() && rule.getResourceNames().contains(r.name())));
  }

  private static boolean resourceMatches(List<String> resources, ApiRequest r) {
    for (String resource : resources) {
      if (resource.equals("*") || resource.equals(r.resourceAndSubresource())) {
        return true;
      }
      if (!r.subresource().isEmpty() && resource.equals("*/" + r.subresource())) {
        return true;
      }
    }
    return false;
  }

  private static boolean binds(List<Subject> subjects, Predicate<Subject> subject) {
    return subjects != null && subjects.stream().anyMatch(subject);
  }

  /**
   * The objects with every aggregated ClusterRole's rules filled in: its own and those of each
   * ClusterRole whose labels one of its selectors matches, repeated until nothing changes (an
   * aggregated role may itself be aggregated into another, as view is into edit).
   */
  static List<HasMetadata> aggregated(List<HasMetadata> objects) {
    List<HasMetadata> out = new ArrayList<>(objects);
    boolean changed = true;
    while (changed) {
      changed = false;
      List<ClusterRole> roles = Manifests.ofKind(out, ClusterRole.class);
      for (ClusterRole role : roles) {
        if (role.getAggregationRule() == null) {
          continue;
        }
        Set<PolicyRule> rules = new LinkedHashSet<>(role.getRules());
        for (ClusterRole other : roles) {
          for (LabelSelector selector : role.getAggregationRule().getClusterRoleSelectors()) {
            if (other != role
                && other.getMetadata().getLabels() != null
                && Manifests.selects(selector, other.getMetadata().getLabels())) {
              rules.addAll(other.getRules());
            }
          }
        }
        if (rules.size() > role.getRules().size()) {
          out.set(
              out.indexOf(role),
              new ClusterRoleBuilder(role).withRules(new ArrayList<>(rules)).build());
          changed = true;
        }
      }
    }
    return out;
  }

  /** The rules a binding refers to; a RoleBinding's Role is looked up in its own namespace. */
  private static List<PolicyRule> rules(List<HasMetadata> objects, RoleRef ref, String namespace) {
    if (ref.getKind().equals("ClusterRole")) {
      return Manifests.ofKind(objects, ClusterRole.class).stream()
          .filter(r -> r.getMetadata().getName().equals(ref.getName()))
          .findFirst()
          .map(ClusterRole::getRules)
          .orElse(List.of());
    }
    return Manifests.ofKind(objects, Role.class).stream()
        .filter(r -> r.getMetadata().getName().equals(ref.getName()))
        .filter(r -> namespace != null && namespace.equals(r.getMetadata().getNamespace()))
        .findFirst()
        .map(Role::getRules)
        .orElse(List.of());
  }
}
