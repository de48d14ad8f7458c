package dev.baton.testkit;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The built-in resources the embedded API's discovery lists ({@link ApiDiscovery}): those the
 * chart, Helm and the tests use, with kind, scope, verbs, short names and categories as a 1.30 API
 * server lists them.
 */
final class BuiltInResources {

  private BuiltInResources() {}

  static final List<String> ALL_VERBS =
      List.of("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch");
  static final List<String> STATUS_VERBS = List.of("get", "patch", "update");

  /** The verbs the apiextensions server lists for every custom resource, in its order. */
  static final List<String> CUSTOM_VERBS =
      List.of("delete", "deletecollection", "get", "list", "patch", "create", "update", "watch");

  /** One built-in resource as discovery lists it; {@code name} with a slash is a subresource. */
  record Resource(
      String name,
      String kind,
      boolean namespaced,
      List<String> verbs,
      List<String> shortNames,
      List<String> categories) {

    static Resource of(String name, String kind, boolean namespaced, String... shortNames) {
      return new Resource(name, kind, namespaced, ALL_VERBS, List.of(shortNames), List.of());
    }

    static Resource workload(String name, String kind, String shortName) {
      return new Resource(name, kind, true, ALL_VERBS, List.of(shortName), List.of("all"));
    }

    static Resource status(String parent, String kind, boolean namespaced) {
      return new Resource(parent + "/status", kind, namespaced, STATUS_VERBS, List.of(), List.of());
    }

    static Resource createOnly(String name, String kind) {
      return new Resource(name, kind, false, List.of("create"), List.of(), List.of());
    }
  }

  /** The built-in group versions, in the order a server lists them. */
  static final Map<String, List<Resource>> BY_GROUP_VERSION = new LinkedHashMap<>();

  static {
    BY_GROUP_VERSION.put(
        "v1",
        List.of(
            Resource.of("configmaps", "ConfigMap", true, "cm"),
            Resource.of("endpoints", "Endpoints", true, "ep"),
            Resource.of("events", "Event", true, "ev"),
            new Resource(
                "namespaces",
                "Namespace",
                false,
                List.of("create", "delete", "get", "list", "patch", "update", "watch"),
                List.of("ns"),
                List.of()),
            Resource.status("namespaces", "Namespace", false),
            Resource.of("nodes", "Node", false, "no"),
            Resource.status("nodes", "Node", false),
            Resource.workload("pods", "Pod", "po"),
            Resource.status("pods", "Pod", true),
            Resource.of("secrets", "Secret", true),
            Resource.of("serviceaccounts", "ServiceAccount", true, "sa"),
            Resource.workload("services", "Service", "svc"),
            Resource.status("services", "Service", true)));
    BY_GROUP_VERSION.put(
        "apps/v1",
        List.of(
            Resource.workload("daemonsets", "DaemonSet", "ds"),
            Resource.status("daemonsets", "DaemonSet", true),
            Resource.workload("deployments", "Deployment", "deploy"),
            Resource.status("deployments", "Deployment", true),
            Resource.workload("replicasets", "ReplicaSet", "rs"),
            Resource.status("replicasets", "ReplicaSet", true),
            Resource.workload("statefulsets", "StatefulSet", "sts"),
            Resource.status("statefulsets", "StatefulSet", true)));
    BY_GROUP_VERSION.put(
        "authorization.k8s.io/v1",
        List.of(
            Resource.createOnly("selfsubjectaccessreviews", "SelfSubjectAccessReview"),
            Resource.createOnly("selfsubjectrulesreviews", "SelfSubjectRulesReview")));
    BY_GROUP_VERSION.put(
        "rbac.authorization.k8s.io/v1",
        List.of(
            Resource.of("clusterrolebindings", "ClusterRoleBinding", false),
            Resource.of("clusterroles", "ClusterRole", false),
            Resource.of("rolebindings", "RoleBinding", true),
            Resource.of("roles", "Role", true)));
    BY_GROUP_VERSION.put(
        "policy/v1",
        List.of(
            Resource.of("poddisruptionbudgets", "PodDisruptionBudget", true, "pdb"),
            Resource.status("poddisruptionbudgets", "PodDisruptionBudget", true)));
    BY_GROUP_VERSION.put(
        "apiextensions.k8s.io/v1",
        List.of(
            new Resource(
                "customresourcedefinitions",
                "CustomResourceDefinition",
                false,
                ALL_VERBS,
                List.of("crd", "crds"),
                List.of("api-extensions")),
            Resource.status("customresourcedefinitions", "CustomResourceDefinition", false)));
    BY_GROUP_VERSION.put("coordination.k8s.io/v1", List.of(Resource.of("leases", "Lease", true)));
    BY_GROUP_VERSION.put(
        "admissionregistration.k8s.io/v1",
        List.of(
            Resource.of("mutatingwebhookconfigurations", "MutatingWebhookConfiguration", false),
            Resource.of(
                "validatingwebhookconfigurations", "ValidatingWebhookConfiguration", false)));
    BY_GROUP_VERSION.put(
        "networking.k8s.io/v1",
        List.of(Resource.of("networkpolicies", "NetworkPolicy", true, "netpol")));
    BY_GROUP_VERSION.put(
        "discovery.k8s.io/v1", List.of(Resource.of("endpointslices", "EndpointSlice", true)));
  }
}
