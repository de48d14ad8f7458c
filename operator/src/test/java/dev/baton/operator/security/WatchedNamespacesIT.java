package dev.baton.operator.security;

import static dev.baton.testkit.Timeouts.WAIT;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.client.BatonNames;
import dev.baton.operator.config.OperatorConfig;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.testkit.RespClient;
import dev.baton.testkit.Sandbox;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * BATON_NAMESPACES=team-a,team-b: groups there elect as usual, while a group and its pods in team-c
 * are never read into an election, labeled, annotated, given a status or an Event, and get no key
 * in Redis, even while things happen to them.
 */
class WatchedNamespacesIT {

  private static final String ROLE = BatonCluster.ROLE;

  @Test
  void groupsAndPodsOutsideTheWatchedNamespacesAreNeverTouched() {
    try (BatonCluster cluster = new BatonCluster()) {
      cluster.env(OperatorConfig.NAMESPACES, "team-a, team-b");
      for (String ns : List.of("team-a", "team-b", "team-c")) {
        for (int i = 0; i < 3; i++) {
          cluster
              .client
              .pods()
              .resource(Sandbox.readyPod(ns, "payments-" + i, Map.of("app", "payments")))
              .create();
        }
        LeaderGroup g = Sandbox.group("payments", "payments");
        g.getMetadata().setNamespace(ns);
        cluster.client.resource(g).create();
      }
      cluster.startOperator();

      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                for (String ns : List.of("team-a", "team-b")) {
                  assertThat(leaders(cluster, ns)).as("leaders in %s", ns).hasSize(1);
                  assertThat(group(cluster, ns).getStatus()).as("status in %s", ns).isNotNull();
                  assertThat(group(cluster, ns).getStatus().getLeader())
                      .isEqualTo(leaders(cluster, ns).get(0));
                }
              });
      // Things happen in team-c: a pod goes, the group is edited, a switchover is asked for.
      cluster.client.pods().inNamespace("team-c").withName("payments-0").delete();
      cluster
          .client
          .resources(LeaderGroup.class)
          .inNamespace("team-c")
          .withName("payments")
          .edit(
              g -> {
                g.getMetadata()
                    .setAnnotations(Map.of(BatonNames.SWITCHOVER_ANNOTATION, "payments-1"));
                g.getSpec().setPaused(false);
                return g;
              });

      // The same request in a watched namespace at the same moment: carried out within the window
      // below, it shows the operator was handling events while team-c's were ignored.
      String teamALeader = leaders(cluster, "team-a").get(0);
      String teamATarget = teamALeader.equals("payments-1") ? "payments-2" : "payments-1";
      cluster
          .client
          .resources(LeaderGroup.class)
          .inNamespace("team-a")
          .withName("payments")
          .edit(
              g -> {
                g.getMetadata()
                    .setAnnotations(Map.of(BatonNames.SWITCHOVER_ANNOTATION, teamATarget));
                return g;
              });

      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(4))
          .pollInterval(Duration.ofMillis(100))
          .untilAsserted(
              () -> {
                assertThat(cluster.client.pods().inNamespace("team-c").list().getItems())
                    .as("pods in team-c")
                    .hasSize(2)
                    .allSatisfy(
                        p -> assertThat(batonMarks(p)).as(p.getMetadata().getName()).isEmpty());
                LeaderGroup c = group(cluster, "team-c");
                assertThat(c.getStatus()).as("status of the group in team-c").isNull();
                assertThat(c.getMetadata().getFinalizers())
                    .as("finalizers in team-c")
                    .isNullOrEmpty();
                assertThat(c.getMetadata().getAnnotations())
                    .containsKey(BatonNames.SWITCHOVER_ANNOTATION);
                assertThat(cluster.client.v1().events().inNamespace("team-c").list().getItems())
                    .as("Events in team-c")
                    .isEmpty();
              });
      assertThat(leaders(cluster, "team-a")).containsExactly(teamATarget);
      try (RespClient redis = RespClient.connect(cluster.redis.port())) {
        assertThat(redis.call("KEYS", "baton:*"))
            .asList()
            .contains("baton:{team-a/payments}:leader", "baton:{team-b/payments}:leader")
            .noneMatch(k -> k.toString().contains("team-c"));
      }
    }
  }

  private static LeaderGroup group(BatonCluster cluster, String ns) {
    return cluster.client.resources(LeaderGroup.class).inNamespace(ns).withName("payments").get();
  }

  private static List<String> leaders(BatonCluster cluster, String ns) {
    return cluster.client.pods().inNamespace(ns).list().getItems().stream()
        .filter(p -> "leader".equals(labels(p).get(ROLE)))
        .map(p -> p.getMetadata().getName())
        .toList();
  }

  /** The labels and annotations Baton would have put on a pod. */
  private static Map<String, String> batonMarks(Pod p) {
    Map<String, String> all = new java.util.TreeMap<>(labels(p));
    if (p.getMetadata().getAnnotations() != null) {
      all.putAll(p.getMetadata().getAnnotations());
    }
    return all.entrySet().stream()
        .filter(
            e ->
                e.getKey().startsWith("baton.dev/")
                    || e.getKey().equals("controller.kubernetes.io/pod-deletion-cost"))
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
  }

  private static Map<String, String> labels(Pod p) {
    return p.getMetadata().getLabels() == null ? Map.of() : p.getMetadata().getLabels();
  }
}
