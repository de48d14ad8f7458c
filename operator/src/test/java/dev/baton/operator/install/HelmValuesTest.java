package dev.baton.operator.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The chart's values: its schema refuses bad ones with a message, and its README documents all. */
class HelmValuesTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      quoteCharacter = '"',
      textBlock =
          """
          replicaCount: two                         | /replicaCount       | want integer
          log: {level: info, format: xml}           | /log/format         | 'text', 'json'
          log: {level: verbose, format: text}       | /log/level          | must be one of
          replicas: 3                               | 'replicas'          | not allowed
          redis: {url: 'redis://:pw@redis:6379'}    | /redis/url          | pattern
          redis: {url: 'http://redis:6379'}         | /redis/url          | pattern
          redis: {existingSecretUrlKey: url}        | /redis/existingSecret | minLength
          leaderElection: {enabled: false}          | /replicaCount       | maximum
          watchNamespaces: [Team_A]                 | /watchNamespaces/0  | pattern
          watchNamespaces: [team-a, team-a]         | /watchNamespaces    | are equal
          clusterId: 'eu west'                      | /clusterId          | pattern
          image: {pullPolicy: Sometimes}            | /image/pullPolicy   | must be one of
          httpPort: 80                              | /httpPort           | minimum
          metrics: {serviceMonitor: {enabled: true}, service: {enabled: false}} \
                                                    | /metrics/service/enabled | must be true
          podDisruptionBudget: {maxUnavailable: x}  | /podDisruptionBudget/maxUnavailable | oneOf
          leaderElection: {enabled: true, leaseName: Baton_A} | /leaderElection/leaseName | pattern
          monitoring: {podMonitor: {relabelings: [{action: explode}]}} \
                                                    | /monitoring/podMonitor/relabelings/0/action | must be one of
          monitoring: {agentPodMonitor: {port: 4041}} | /monitoring/agentPodMonitor/port | want string
          networkPolicy: {redis: {ports: [0]}}      | /networkPolicy/redis/ports/0 | minimum
          rbac: {aggregateClusterRoles: 1}          | /rbac/aggregateClusterRoles | want boolean
          """)
  void schemaRefusesBadValuesWithAMessage(String values, String path, String reason) {
    assertThatThrownBy(() -> HelmChart.renderText(values))
        .hasMessageContaining("values don't meet the specifications of the schema")
        .hasMessageContaining(path)
        .hasMessageContaining(reason);
  }

  @Test
  void readmeDocumentsEveryValue() throws IOException {
    String readme = Files.readString(InstallFiles.CHART.resolve("README.md"));
    JsonNode values =
        Manifests.documents(
                Files.readString(InstallFiles.CHART.resolve("values.yaml")), "values.yaml")
            .get(0);

    List<String> keys = new ArrayList<>();
    collectKeys(values, "", keys);

    assertThat(keys).hasSizeGreaterThan(30);
    assertThat(keys)
        .as("values.yaml keys missing from the values table of README.md")
        .allMatch(k -> readme.contains("`" + k + "`"));
  }

  /** Values documented as one row although they are objects: Kubernetes fields passed through. */
  private static final List<String> WHOLE_VALUES =
      List.of(
          "resources",
          "podSecurityContext",
          "securityContext",
          "probes.startup",
          "probes.liveness",
          "probes.readiness",
          "grafanaDashboard.labels",
          "monitoring.agentPodMonitor.namespaceSelector",
          "monitoring.agentPodMonitor.selector");

  private static void collectKeys(JsonNode node, String key, List<String> keys) {
    if (!node.isObject() || node.isEmpty() || WHOLE_VALUES.contains(key)) {
      keys.add(key);
      return;
    }
    for (Map.Entry<String, JsonNode> field : node.properties()) {
      collectKeys(
          field.getValue(), key.isEmpty() ? field.getKey() : key + "." + field.getKey(), keys);
    }
  }
}
