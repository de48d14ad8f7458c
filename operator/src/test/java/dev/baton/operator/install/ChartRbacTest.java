package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The authorizer the tests hold the operator's requests against decides as Kubernetes does. */
class ChartRbacTest {

  private static final String NS = HelmChart.NAMESPACE;
  private static final String LEASE = "/apis/coordination.k8s.io/v1/namespaces/" + NS + "/leases";

  private static ChartRbac defaults() {
    return ChartRbac.of(HelmChart.renderDefaults(), HelmChart.fullname(), NS);
  }

  private static boolean allowed(ChartRbac rbac, String method, String path) {
    return rbac.refusal(ApiRequest.parse(method, path)) == null;
  }

  @Test
  void readsTheRequestAsTheApiServersRequestInfoDoes() {
    assertThat(ApiRequest.parse("GET", "/api/v1/namespaces/shop/pods?watch=true&labelSelector=a"))
        .extracting(
            ApiRequest::verb, ApiRequest::group, ApiRequest::resource, ApiRequest::namespace)
        .containsExactly("watch", "", "pods", "shop");
    assertThat(
            ApiRequest.parse(
                "PATCH", "/apis/baton.dev/v1alpha1/namespaces/shop/leadergroups/g/status"))
        .extracting(ApiRequest::verb, ApiRequest::resourceAndSubresource, ApiRequest::name)
        .containsExactly("patch", "leadergroups/status", "g");
    assertThat(ApiRequest.parse("GET", LEASE + "?fieldSelector=metadata.name%3Dbaton-operator"))
        .extracting(ApiRequest::verb, ApiRequest::name)
        .containsExactly("list", "baton-operator");
    assertThat(ApiRequest.parse("GET", "/api/v1/nodes"))
        .extracting(ApiRequest::verb, ApiRequest::namespace)
        .containsExactly("list", "");
    assertThat(ApiRequest.parse("GET", "/api/v1/namespaces/shop"))
        .extracting(ApiRequest::resource, ApiRequest::name, ApiRequest::namespace)
        .containsExactly("namespaces", "shop", "");
    assertThat(ApiRequest.parse("DELETE", "/api/v1/namespaces/shop/pods").verb())
        .isEqualTo("deletecollection");
    assertThat(ApiRequest.parse("GET", "/apis/baton.dev/v1alpha1").isResourceRequest()).isFalse();
  }

  @Test
  void theNamedLeaseMayBeListedAndWatchedOnlyByNameAndCreatedWithoutOne() {
    ChartRbac rbac = defaults();

    assertThat(
            allowed(
                rbac, "GET", LEASE + "?fieldSelector=metadata.name%3Dbaton-operator&watch=true"))
        .isTrue();
    assertThat(allowed(rbac, "GET", LEASE + "?fieldSelector=metadata.name%3Dbaton-operator"))
        .isTrue();
    assertThat(allowed(rbac, "GET", LEASE + "/baton-operator")).isTrue();
    assertThat(allowed(rbac, "PUT", LEASE + "/baton-operator")).isTrue();
    assertThat(allowed(rbac, "POST", LEASE)).isTrue();
    assertThat(allowed(rbac, "GET", LEASE)).as("every Lease of the namespace").isFalse();
    assertThat(allowed(rbac, "GET", LEASE + "/someone-else")).isFalse();
    assertThat(allowed(rbac, "DELETE", LEASE + "/baton-operator")).isFalse();
    assertThat(
            allowed(
                rbac, "GET", "/apis/coordination.k8s.io/v1/namespaces/other/leases/baton-operator"))
        .as("the Role holds in the release namespace only")
        .isFalse();
  }

  @Test
  void aRoleWithoutListAndWatchRefusesTheLeaseInformerAsTheClusterDid() {
    List<HasMetadata> objects = new ArrayList<>(HelmChart.renderDefaults());
    Role election = Manifests.named(objects, Role.class, HelmChart.fullname() + "-leader-election");
    objects.remove(election);
    objects.add(
        new RoleBuilder(election)
            .editMatchingRule(r -> r.getResourceNames() != null && !r.getResourceNames().isEmpty())
            .withVerbs("get", "update")
            .endRule()
            .build());
    ChartRbac before = ChartRbac.of(objects, HelmChart.fullname(), NS);

    assertThat(
            before.refusal(
                ApiRequest.parse("GET", LEASE + "?fieldSelector=metadata.name%3Dbaton-operator")))
        .isNotNull();
  }

  @Test
  void aRoleInTheWatchedNamespacesGrantsNothingClusterWideOrElsewhere() {
    ChartRbac rbac =
        ChartRbac.of(HelmChart.render(NS, "watchNamespaces: [team-a]"), HelmChart.fullname(), NS);

    assertThat(allowed(rbac, "GET", "/api/v1/namespaces/team-a/pods?watch=true")).isTrue();
    assertThat(allowed(rbac, "PATCH", "/api/v1/namespaces/team-a/pods/p")).isTrue();
    assertThat(allowed(rbac, "GET", "/api/v1/pods?watch=true")).as("all namespaces").isFalse();
    assertThat(allowed(rbac, "PATCH", "/api/v1/namespaces/team-b/pods/p")).isFalse();
    assertThat(allowed(rbac, "GET", "/api/v1/nodes?watch=true")).as("cluster-scoped").isTrue();
  }

  @Test
  void allNamespacesAreGrantedClusterWideButSubresourcesOnlyWhereNamed() {
    ChartRbac rbac = defaults();

    assertThat(allowed(rbac, "GET", "/api/v1/pods?watch=true")).isTrue();
    assertThat(allowed(rbac, "PUT", "/apis/baton.dev/v1alpha1/namespaces/a/leadergroups/g/status"))
        .isTrue();
    assertThat(allowed(rbac, "PUT", "/apis/baton.dev/v1alpha1/namespaces/a/leadergroups/g"))
        .as("the status subresource is not the resource")
        .isFalse();
    assertThat(allowed(rbac, "PATCH", "/api/v1/namespaces/a/pods/p/status"))
        .as("pods/status is not pods")
        .isFalse();
    assertThat(allowed(rbac, "DELETE", "/api/v1/namespaces/a/pods/p")).isFalse();
    assertThat(allowed(rbac, "GET", "/api/v1/namespaces/a/configmaps/c")).isFalse();
    assertThat(allowed(rbac, "GET", "/apis")).as("discovery").isTrue();
  }
}
