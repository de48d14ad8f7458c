package dev.baton.operator.security;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.client.BatonNames;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.ClusterTest;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Role labels that cannot take over other workloads, against the real operator, a real redis-server
 * and the mock API server: a key outside baton.dev/ and the allowed prefixes goes only on pods that
 * opt in, and a group never relabels or re-marks pods another group labels, whatever its role
 * label; both are reported as Conflict with an Event, and nothing is written on the pods.
 */
class TenantRoleLabelsIT extends ClusterTest {

  private static final String DB_ROLE = "db.example.com/role";

  @Test
  void aRoleLabelOutsideBatonsDomainGoesOnlyOnPodsThatOptInOrAnAllowedPrefix() {
    for (int i = 0; i < 2; i++) {
      cluster.createPod(pod("web-" + i, Map.of("app", "web", "tier", "front"), Map.of()));
      cluster.createPod(
          pod(
              "db-" + i,
              Map.of("app", "db"),
              Map.of(BatonNames.ALLOW_ROLE_LABEL_ANNOTATION, DB_ROLE)));
      cluster.createPod(pod("cache-" + i, Map.of("app", "cache"), Map.of()));
    }
    cluster.env("BATON_ROLE_LABEL_PREFIXES", "example.org/").startOperator();
    Map<String, Map<String, String>> web = metadata("web-");

    // Would rewrite the app label another Deployment's ReplicaSet and Service select on.
    LeaderGroup hijack = BatonCluster.group("hijack", "ignored");
    hijack
        .getSpec()
        .setSelector(new LabelSelectorBuilder().withMatchLabels(Map.of("tier", "front")).build());
    hijack.getSpec().setRoleLabel("app");
    cluster.create(hijack);
    LeaderGroup db = BatonCluster.group("db", "db");
    db.getSpec().setRoleLabel(DB_ROLE);
    cluster.create(db);
    LeaderGroup cache = BatonCluster.group("cache", "cache");
    cache.getSpec().setRoleLabel("example.org/role");
    cluster.create(cache);

    assertThat(cluster.awaitLeader("db", DB_ROLE)).startsWith("db-");
    assertThat(cluster.awaitLeader("cache", "example.org/role")).startsWith("cache-");
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              cluster
                  .assertCondition("hijack", "Conflict")
                  .hasStatus("True")
                  .hasReason("RoleLabelNotAllowed")
                  .hasMessage(
                      "pods web-0, web-1 are left alone: the role label app is outside baton.dev/"
                          + " and the prefixes the operator allows, and they are not annotated"
                          + " baton.dev/allow-role-label=app");
              cluster.assertCondition("hijack", "Ready").hasReason("Conflict");
            });
    assertThat(cluster.eventReasons("hijack")).contains("RoleLabelNotAllowed");
    await()
        .during(Duration.ofSeconds(1))
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(metadata("web-")).isEqualTo(web));
  }

  @Test
  void aSecondGroupNeverRelabelsPodsAnotherGroupLabelsWhateverItsRoleLabel() {
    String leader = cluster.startGroup("payments", 3);
    await()
        .atMost(WAIT)
        .until(() -> cluster.roles(ROLE).size() == 3 && cluster.term("payments") == 1);
    Map<String, Map<String, String>> before = metadata("payments-");

    LeaderGroup shadow = BatonCluster.group("shadow", "payments");
    shadow.getSpec().setRoleLabel("baton.dev/shadow-role");
    cluster.create(shadow);

    cluster.awaitCondition(
        "shadow",
        "Conflict",
        c ->
            c.hasStatus("True")
                .hasReason("PodClaimedByOtherGroup")
                .hasMessage(
                    "pods payments-0, payments-1, payments-2 are claimed by LeaderGroup payments"
                        + " (it marked them, or it is older) and are left alone"));
    assertThat(cluster.events("shadow"))
        .anySatisfy(
            e -> {
              assertThat(e.getReason()).isEqualTo("Conflict");
              assertThat(e.getMessage()).contains("LeaderGroup payments");
            });
    await()
        .during(Duration.ofSeconds(1))
        .atMost(WAIT)
        .untilAsserted(() -> assertThat(metadata("payments-")).isEqualTo(before));
    assertThat(cluster.roles("baton.dev/shadow-role")).isEmpty();
    assertThat(cluster.pod(leader).getMetadata().getAnnotations())
        .containsEntry(BatonNames.GROUP_ANNOTATION, "payments");
    cluster.assertCondition("payments", "Conflict").hasStatus("False");
  }

  /** The labels and annotations of the pods whose name starts with {@code prefix}, by pod. */
  private Map<String, Map<String, String>> metadata(String prefix) {
    Map<String, Map<String, String>> out = new TreeMap<>();
    for (Pod p : cluster.pods()) {
      if (p.getMetadata().getName().startsWith(prefix)) {
        Map<String, String> both = new TreeMap<>();
        if (p.getMetadata().getLabels() != null) {
          p.getMetadata().getLabels().forEach((k, v) -> both.put("label " + k, v));
        }
        if (p.getMetadata().getAnnotations() != null) {
          p.getMetadata().getAnnotations().forEach((k, v) -> both.put("annotation " + k, v));
        }
        out.put(p.getMetadata().getName(), both);
      }
    }
    return out;
  }

  private static Pod pod(String name, Map<String, String> labels, Map<String, String> annotations) {
    return new PodBuilder(Sandbox.readyPod(NS, name, labels))
        .editMetadata()
        .withAnnotations(annotations)
        .endMetadata()
        .build();
  }
}
