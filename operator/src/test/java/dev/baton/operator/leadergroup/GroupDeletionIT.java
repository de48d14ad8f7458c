package dev.baton.operator.leadergroup;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.RedisLock;
import dev.baton.client.BatonNames;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.ClusterTest;
import dev.baton.testkit.RespClient;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Deleting a LeaderGroup without a finalizer (docs/design.md, "Deleting a group"): the deletion is
 * an event the operator acts on; groups deleted while no operator ran are cleaned up by the next
 * one; the finalizer of earlier releases goes.
 */
class GroupDeletionIT extends ClusterTest {

  private static final String CUSTOM_ROLE = "baton.dev/custom-role";

  private void delete(String group) {
    cluster.client.resources(LeaderGroup.class).inNamespace(NS).withName(group).delete();
  }

  private boolean leaseExists(String group) {
    try (RespClient redis = RespClient.connect(cluster.redis.port())) {
      return !Long.valueOf(0)
          .equals(redis.call("EXISTS", "baton:{" + NS + "/" + group + "}:leader"));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  /** Baton's labels and annotations on a pod: the role labels and every baton.dev key. */
  private Map<String, String> marks(String pod) {
    Pod p = cluster.pod(pod);
    Map<String, String> out = new TreeMap<>();
    var labels = p.getMetadata().getLabels();
    if (labels != null) {
      labels.forEach(
          (k, v) -> {
            if (k.equals(ROLE) || k.equals(CUSTOM_ROLE)) {
              out.put(k, v);
            }
          });
    }
    var annotations = p.getMetadata().getAnnotations();
    if (annotations != null) {
      annotations.forEach(
          (k, v) -> {
            if (BatonNames.isBatonKey(k) || k.equals(BatonNames.DELETION_COST_ANNOTATION)) {
              out.put(k, v);
            }
          });
    }
    return out;
  }

  private void awaitUnmarked(String app) {
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              for (int i = 0; i < 3; i++) {
                assertThat(marks(app + "-" + i)).as(app + "-" + i).isEmpty();
              }
            });
  }

  @Test
  void deletingAGroupStripsItsPodsReleasesItsLeaseAndNeedsNoFinalizer() {
    cluster.createPods("payments", 3);
    cluster.startOperator();
    LeaderGroup g = BatonCluster.group("payments", "payments");
    g.getSpec().setRoleLabel(CUSTOM_ROLE);
    cluster.create(g);
    String leader = cluster.awaitLeader("payments", CUSTOM_ROLE);
    await().atMost(WAIT).until(() -> cluster.roles(CUSTOM_ROLE).size() == 3);
    assertThat(cluster.get("payments").getMetadata().getFinalizers()).isNullOrEmpty();
    assertThat(marks(leader))
        .containsEntry(CUSTOM_ROLE, "leader")
        .containsEntry(BatonNames.ROLE_LABEL_ANNOTATION, CUSTOM_ROLE)
        .containsEntry(BatonNames.GROUP_ANNOTATION, "payments")
        .containsKey(BatonNames.TERM_ANNOTATION);
    assertThat(leaseExists("payments")).isTrue();

    delete("payments");

    assertThat(cluster.get("payments")).as("gone at once: nothing holds it").isNull();
    awaitUnmarked("payments");
    await().atMost(WAIT).until(() -> !leaseExists("payments"));
  }

  @Test
  void anOperatorWhoseGroupsAndLocksWereDeletedIsStillAliveAnHourLater() {
    cluster.createPods("payments", 3);
    cluster.startOperator();
    cluster.create(BatonCluster.group("payments", "payments"));
    cluster.create(BatonCluster.grantedLock("nightly", "5s", "payments"));
    cluster.awaitLeader("payments", ROLE);
    await().atMost(WAIT).until(() -> cluster.lockStatus("nightly").getHolder() != null);
    var liveness = cluster.operator().liveness();
    long anHourLater = System.nanoTime() + Duration.ofHours(1).toNanos();
    assertThat(liveness.checkAt(anHourLater).ok())
        .as("with a group and a lock to look after, an hour without a reconcile is stuck")
        .isFalse();

    delete("payments");
    cluster.client.resources(RedisLock.class).inNamespace(NS).withName("nightly").delete();
    awaitUnmarked("payments");

    await()
        .atMost(WAIT)
        .untilAsserted(
            () ->
                assertThat(liveness.checkAt(System.nanoTime() + Duration.ofHours(1).toNanos()))
                    .as("nothing left to do: alive however long it stays idle")
                    .extracting(c -> c.ok())
                    .isEqualTo(true));
  }

  @Test
  void aGroupDeletedWhileNoOperatorRanIsClearedByTheNextOne() {
    cluster.createPods("payments", 3);
    cluster.createPods("orders", 3);
    cluster.startOperator();
    LeaderGroup custom = BatonCluster.group("payments", "payments");
    custom.getSpec().setRoleLabel(CUSTOM_ROLE);
    cluster.create(custom);
    cluster.create(BatonCluster.group("orders", "orders"));
    cluster.awaitLeader("payments", CUSTOM_ROLE);
    cluster.awaitLeader("orders", ROLE);
    await()
        .atMost(WAIT)
        .until(() -> cluster.roles(CUSTOM_ROLE).size() == 3 && cluster.roles(ROLE).size() == 3);
    cluster.stopOperator();

    delete("payments");
    delete("orders");
    assertThat(marks("payments-0")).as("no operator ran: the marks are still there").isNotEmpty();

    // A group that exists keeps its marks: the sweep touches only the deleted groups' pods.
    cluster.createPods("billing", 3);
    cluster.create(BatonCluster.group("billing", "billing"));
    cluster.startOperator();
    awaitUnmarked("payments");
    awaitUnmarked("orders");
    String leader = cluster.awaitLeader("billing", ROLE);
    assertThat(marks(leader)).containsEntry(ROLE, "leader");
  }

  @Test
  void theFinalizerOfEarlierReleasesIsRemovedAndAGroupItHeldInDeletionGoes() {
    cluster.createPods("payments", 3);
    cluster.createPods("orders", 3);
    LeaderGroup kept = BatonCluster.group("payments", "payments");
    kept.getMetadata().setFinalizers(List.of(LeaderGroupReconciler.LEGACY_FINALIZER));
    cluster.create(kept);
    LeaderGroup deleted = BatonCluster.group("orders", "orders");
    deleted
        .getMetadata()
        .setFinalizers(List.of("example.com/keep", LeaderGroupReconciler.LEGACY_FINALIZER));
    cluster.create(deleted);
    // Marked as an earlier operator would have left them, then deleted while no operator ran.
    for (int i = 0; i < 3; i++) {
      String pod = "orders-" + i;
      cluster
          .client
          .pods()
          .inNamespace(NS)
          .withName(pod)
          .edit(
              p -> {
                p.getMetadata().getLabels().put(ROLE, "follower");
                p.getMetadata().setAnnotations(Map.of(BatonNames.GROUP_ANNOTATION, "orders"));
                return p;
              });
    }
    delete("orders");
    assertThat(cluster.get("orders").getMetadata().getDeletionTimestamp()).isNotNull();

    cluster.startOperator();

    cluster.awaitLeader("payments", ROLE);
    await()
        .atMost(WAIT)
        .untilAsserted(
            () -> {
              assertThat(cluster.get("payments").getMetadata().getFinalizers()).isNullOrEmpty();
              assertThat(cluster.get("orders").getMetadata().getFinalizers())
                  .as("someone else's finalizer stays; only Baton's goes")
                  .containsExactly("example.com/keep");
            });
    awaitUnmarked("orders");
  }
}
