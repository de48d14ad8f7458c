package dev.baton.kubectl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.api.v1alpha1.RedisLockSpec;
import dev.baton.operator.install.PeopleRbac;
import dev.baton.testkit.ApiRequestLog;
import dev.baton.testkit.Kubeconfig;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A person bound only to Kubernetes' own edit role in one namespace, with the chart installed, may
 * create a LeaderGroup there and run kubectl baton's status and levers on it: every request made as
 * that person (kubectl's --as, recorded by the test kit) is held against the chart's aggregated
 * roles, decided as Kubernetes' RBAC decides (ChartRbac, as the operator's own requests are held
 * against the chart). The embedded API enforces no RBAC, so the same requests are also shown
 * refused for a viewer, and without the aggregated roles.
 */
class AggregatedRolesIT {

  private static final String USER = "alice";

  private PluginCluster cluster;
  @TempDir Path dir;
  private Path kubeconfig;

  @BeforeEach
  void start() {
    cluster = new PluginCluster();
    cluster.namespace("shop");
    for (int i = 0; i < 2; i++) {
      cluster
          .client
          .pods()
          .resource(Sandbox.readyPod("shop", "payments-" + i, Map.of("app", "payments")))
          .create();
    }
    kubeconfig = Kubeconfig.write(dir.resolve("kubeconfig"), cluster.kube.url(), "shop");
    ApiRequestLog.start();
    ApiRequestLog.drainImpersonated();
  }

  @AfterEach
  void stop() {
    cluster.close();
  }

  /** What alice sends: the create with her client, then the plugin as she runs it. */
  private List<ApiRequestLog.Impersonated> aliceCreatesAGroupAndPausesIt() {
    Config config = Config.fromKubeconfig(null, kubeconfig.toFile());
    config.setImpersonateUsername(USER);
    try (KubernetesClient alice = new KubernetesClientBuilder().withConfig(config).build()) {
      LeaderGroup g = Sandbox.group("payments", "payments");
      g.getMetadata().setNamespace("shop");
      alice.resource(g).create();
      RedisLock lock = new RedisLock();
      lock.setMetadata(new ObjectMetaBuilder().withName("nightly").withNamespace("shop").build());
      lock.setSpec(new RedisLockSpec());
      lock.getSpec().setTtl("30s");
      alice.resource(lock).create();
    }
    for (String[] command :
        List.of(
            new String[] {"status"},
            new String[] {"status", "payments", "-o", "json"},
            new String[] {"pause", "payments", "--no-wait"},
            new String[] {"resume", "payments", "--no-wait"},
            new String[] {"switchover", "payments", "--to", "payments-1", "--no-wait"},
            new String[] {"release", "nightly", "--no-wait"})) {
      String[] args = new String[command.length + 4];
      args[0] = "--kubeconfig";
      args[1] = kubeconfig.toString();
      args[2] = "--as";
      args[3] = USER;
      System.arraycopy(command, 0, args, 4, command.length);
      PluginCluster.Run run = cluster.batonWithKubeconfig(args);
      assertThat(run.exit()).as(String.join(" ", command) + ": " + run.err()).isZero();
    }
    assertThat(
            cluster
                .client
                .resources(LeaderGroup.class)
                .inNamespace("shop")
                .withName("payments")
                .get()
                .getSpec()
                .getPaused())
        .as("resumed after the pause")
        .isFalse();
    List<ApiRequestLog.Impersonated> sent = ApiRequestLog.drainImpersonated();
    assertThat(sent)
        .extracting(ApiRequestLog.Impersonated::method)
        .contains("POST", "PATCH", "GET");
    return sent;
  }

  private static TreeSet<String> refused(PeopleRbac rbac, List<ApiRequestLog.Impersonated> sent) {
    TreeSet<String> refused = new TreeSet<>();
    for (ApiRequestLog.Impersonated r : sent) {
      String why = rbac.refusal(r.method(), r.path());
      if (why != null) {
        refused.add(r.method() + " " + r.path().replaceAll("\\?.*", "") + ": " + why);
      }
    }
    return refused;
  }

  @Test
  void anEditorOfTheNamespaceMayCreateAGroupAndRunTheLevers() {
    List<ApiRequestLog.Impersonated> sent = aliceCreatesAGroupAndPausesIt();

    assertThat(refused(PeopleRbac.bound("", "shop", USER, "edit"), sent))
        .as("requests the aggregated edit role would refuse with a 403")
        .isEmpty();
    assertThat(refused(PeopleRbac.bound("", "shop", USER, "admin"), sent)).isEmpty();
  }

  @Test
  void aViewerMayLookButNotPauseAndWithoutTheAggregatedRolesAnEditorMayNotCreate() {
    List<ApiRequestLog.Impersonated> sent = aliceCreatesAGroupAndPausesIt();

    TreeSet<String> asViewer = refused(PeopleRbac.bound("", "shop", USER, "view"), sent);
    assertThat(asViewer)
        .isNotEmpty()
        .allMatch(r -> r.startsWith("POST ") || r.startsWith("PATCH "))
        .anyMatch(
            r ->
                r.startsWith(
                    "PATCH /apis/baton.dev/v1alpha1/namespaces/shop/leadergroups/payments"));
    PeopleRbac elsewhere = PeopleRbac.bound("", "billing", USER, "edit");
    assertThat(sent)
        .as("bound in another namespace: nothing in shop")
        .allMatch(r -> elsewhere.refusal(r.method(), r.path()) != null);
    assertThat(
            refused(
                PeopleRbac.bound("rbac: {aggregateClusterRoles: false}", "shop", USER, "edit"),
                sent))
        .anyMatch(r -> r.startsWith("POST /apis/baton.dev/v1alpha1/namespaces/shop/leadergroups"));
  }
}
