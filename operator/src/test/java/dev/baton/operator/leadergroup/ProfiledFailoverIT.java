package dev.baton.operator.leadergroup;

import static dev.baton.operator.testing.BatonCluster.ROLE;
import static dev.baton.testkit.Sandbox.NS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.operator.testing.BatonClusterExtension;
import dev.baton.testkit.EmbeddedKubernetes;
import dev.baton.testkit.LatencyProfile;
import dev.baton.testkit.RoleWatcher;
import dev.baton.testkit.Sandbox;
import dev.baton.testkit.Timeouts;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Break before make on a server with kube-apiserver v1.32's latencies (the test kit's profile,
 * fixed seed): across failovers of every kind, the demotion is a merge patch no resourceVersion
 * guards and the lease the renewer keeps fresh is not read again, and still a watcher of the pods,
 * its events in the order the server wrote them, never sees two pods labeled leader.
 */
class ProfiledFailoverIT {

  private static final Duration WAIT = Timeouts.LONG_WAIT;
  private static final String APP = "orders";

  /** Keeps a deleted pod terminating, as a kubelet stopping its containers does. */
  private static final String FINALIZER = "test.baton.dev/graceful";

  @RegisterExtension
  final BatonClusterExtension baton =
      BatonClusterExtension.on(
          () -> EmbeddedKubernetes.start().latency(LatencyProfile.kubeApiserver132(59)));

  private BatonCluster cluster;

  @BeforeEach
  void setUp(BatonCluster cluster) {
    this.cluster = cluster;
  }

  private enum Kind {
    /** Deleted, then turned not ready by its kubelet: the demotion of a pod that changes. */
    TERMINATING,
    NOT_READY,
    /** Gone at once: nothing to demote. */
    DELETED
  }

  @Test
  void aWatcherNeverSeesTwoLeadersAcrossFailoversOfEveryKind() {
    try (KubernetesClient watchClient = cluster.kube.newClient();
        RoleWatcher watcher = new RoleWatcher(watchClient, NS, ROLE)) {
      for (int i = 0; i < 3; i++) {
        createPod(APP + "-" + i);
      }
      cluster.startOperator();
      cluster.create(BatonCluster.group(APP, APP));
      awaitSettled(watcher);
      int rounds = 2;
      for (int round = 0; round < rounds; round++) {
        for (Kind kind : Kind.values()) {
          failOver(watcher, kind);
        }
      }

      assertThat(watcher.outOfOrder()).as("events the watch reordered").isEmpty();
      assertThat(watcher.violations()).as(String.join("\n", watcher.history())).isEmpty();
      assertThat(watcher.leaderChanges()).isGreaterThanOrEqualTo(rounds * Kind.values().length);
    }
  }

  private void failOver(RoleWatcher watcher, Kind kind) {
    String leader = watcher.leaders().iterator().next();
    int before = watcher.leaderChanges();
    switch (kind) {
      case TERMINATING -> {
        cluster.deletePod(leader);
        cluster.setReady(leader, false);
      }
      case NOT_READY -> cluster.setReady(leader, false);
      case DELETED -> {
        releaseFinalizer(leader);
        cluster.deletePod(leader);
      }
    }
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(10))
        .until(() -> watcher.leaderChanges() > before);
    switch (kind) {
      case TERMINATING -> {
        releaseFinalizer(leader);
        await().atMost(WAIT).until(() -> cluster.pod(leader) == null);
        createPod(leader);
      }
      case NOT_READY -> cluster.setReady(leader, true);
      case DELETED -> {
        await().atMost(WAIT).until(() -> cluster.pod(leader) == null);
        createPod(leader);
      }
    }
    awaitSettled(watcher);
  }

  /** One leader, every pod labeled, and the status naming that leader among three candidates. */
  private void awaitSettled(RoleWatcher watcher) {
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(20))
        .until(
            () -> {
              Set<String> leaders = watcher.leaders();
              LeaderGroup g = cluster.get(APP);
              return leaders.size() == 1
                  && cluster.roles(ROLE).size() == 3
                  && g.getStatus() != null
                  && Integer.valueOf(3).equals(g.getStatus().getCandidates())
                  && leaders.contains(g.getStatus().getLeader());
            });
  }

  private void createPod(String name) {
    Pod pod = Sandbox.readyPod(NS, name, Map.of("app", APP));
    pod.getMetadata().setFinalizers(List.of(FINALIZER));
    cluster.createPod(pod);
  }

  private void releaseFinalizer(String name) {
    cluster
        .client
        .pods()
        .inNamespace(NS)
        .withName(name)
        .patch(PatchContext.of(PatchType.JSON_MERGE), "{\"metadata\":{\"finalizers\":null}}");
  }
}
