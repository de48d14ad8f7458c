package dev.baton.operator.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.api.v1alpha1.LeaderService;
import dev.baton.api.v1alpha1.LeaderServicePort;
import dev.baton.operator.testing.BatonCluster;
import dev.baton.testkit.Sandbox;
import dev.baton.testkit.Timeouts;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What a Prometheus pays per LeaderGroup: the series on /metrics that carry a group's label, after
 * each group was elected, failed over once and routed its Service, stay within the budget; and a
 * deleted group's series are gone.
 */
class SeriesPerGroupIT {

  /** The budget per group (docs/design.md: metrics that a Prometheus can afford). */
  static final int BUDGET = 15;

  private static final String ROLE = BatonCluster.ROLE;
  private static final Duration WAIT = Timeouts.LONG_WAIT;
  private static final List<String> GROUPS = List.of("alpha", "beta", "gamma");
  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void eachGroupCostsAtMostFifteenSeriesAfterAFailoverAndNoneOnceDeleted() throws Exception {
    try (BatonCluster cluster = new BatonCluster()) {
      int ip = 10;
      for (String g : GROUPS) {
        for (int i = 0; i < 3; i++) {
          // An address, so that the operator can route the group's Service to it.
          cluster.createPod(
              new PodBuilder(Sandbox.readyPod(Sandbox.NS, g + "-" + i, Map.of("app", g)))
                  .editSpec()
                  .withNodeName("node-1")
                  .endSpec()
                  .editStatus()
                  .withPodIP("10.1.0." + ip++)
                  .endStatus()
                  .build());
        }
      }
      cluster.startOperator();
      for (String g : GROUPS) {
        cluster.create(groupWithService(g));
      }
      for (String g : GROUPS) {
        // Every group labels with the same role label: wait on each group's own status.
        String first =
            await()
                .atMost(WAIT)
                .until(
                    () -> cluster.status(g) == null ? null : cluster.status(g).getLeader(),
                    l -> l != null && !l.isEmpty());
        cluster.deletePod(first);
        await()
            .atMost(WAIT)
            .untilAsserted(
                () ->
                    assertThat(cluster.status(g).getTerm())
                        .as(cluster.describe(g, ROLE))
                        .isEqualTo(2));
      }
      await()
          .atMost(WAIT)
          .untilAsserted(
              () -> {
                String scrape = scrape(cluster);
                for (String g : GROUPS) {
                  assertThat(scrape)
                      .as("routing converged for %s after its failover", g)
                      .contains("baton_routing_convergence_seconds_count{group=\"" + g + "\"");
                  assertThat(scrape)
                      .contains(
                          "baton_leadergroup_condition{group=\""
                              + g
                              + "\",namespace=\"shop\",type=\"Routed\"} 1.0");
                }
              });

      Map<String, List<String>> perGroup = seriesByGroup(scrape(cluster));
      System.out.printf(
          "series per group after one failover each: %s%n",
          perGroup.entrySet().stream()
              .map(e -> e.getKey() + "=" + e.getValue().size())
              .collect(Collectors.joining(", ")));
      assertThat(perGroup).containsOnlyKeys(GROUPS);
      perGroup.forEach(
          (group, series) ->
              assertThat(series)
                  .as("the series of %s:%n%s", group, String.join("\n", series))
                  .hasSizeLessThanOrEqualTo(BUDGET));

      cluster.client.resources(LeaderGroup.class).inNamespace(Sandbox.NS).withName("beta").delete();
      await()
          .atMost(WAIT)
          .untilAsserted(
              () ->
                  assertThat(seriesByGroup(scrape(cluster)))
                      .as("a deleted group's series are removed")
                      .containsOnlyKeys("alpha", "gamma"));
    }
  }

  private String scrape(BatonCluster cluster) throws Exception {
    return http.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + cluster.operator().httpPort() + "/metrics"))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  /** Every sample line that names one of the test's groups, by group. */
  static Map<String, List<String>> seriesByGroup(String scrape) {
    Map<String, List<String>> byGroup = new TreeMap<>();
    for (String line : scrape.split("\n")) {
      if (line.startsWith("#")) {
        continue;
      }
      for (String g : GROUPS) {
        if (line.contains("=\"" + g + "\"")) {
          byGroup.computeIfAbsent(g, k -> new java.util.ArrayList<>()).add(line);
        }
      }
    }
    return byGroup;
  }

  private static LeaderGroup groupWithService(String name) {
    LeaderGroup g = Sandbox.group(name, name);
    g.getSpec()
        .setService(
            new LeaderService(
                name + "-primary",
                List.of(new LeaderServicePort("http", 80, new IntOrString(8080)))));
    return g;
  }
}
