package dev.baton.operator.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OperatorConfigTest {

  @Test
  void defaults() {
    OperatorConfig c = OperatorConfig.from(Map.of(), false);
    assertThat(c.redis().url()).isEqualTo("redis://127.0.0.1:6379");
    assertThat(c.watchesAllNamespaces()).isTrue();
    assertThat(c.clusterId()).isEqualTo("default");
    assertThat(c.httpPort()).isEqualTo(8080);
    assertThat(c.leaderElection()).isFalse();
    assertThat(OperatorConfig.from(Map.of(), true).leaderElection()).isTrue();
    assertThat(c.redisTimeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(c.leaderElectionLeaseName()).isEqualTo("baton-operator");
  }

  @Test
  void theOperatorLeaseIsNamedByItsVariable() {
    assertThat(
            OperatorConfig.from(Map.of("BATON_LEADER_ELECTION_LEASE_NAME", "baton-team-a"), true)
                .leaderElectionLeaseName())
        .isEqualTo("baton-team-a");
    assertThatThrownBy(
            () -> OperatorConfig.from(Map.of("BATON_LEADER_ELECTION_LEASE_NAME", "Team_A"), true))
        .hasMessageContaining("BATON_LEADER_ELECTION_LEASE_NAME 'Team_A'");
  }

  @Test
  void readsEveryVariable() {
    OperatorConfig c =
        OperatorConfig.from(
            Map.of(
                "BATON_REDIS_URL",
                "rediss://r:6380",
                "BATON_REDIS_USERNAME",
                "baton",
                "BATON_REDIS_PASSWORD",
                "pw",
                "BATON_NAMESPACES",
                "a, b,,",
                "BATON_CLUSTER_ID",
                "eu-1",
                "BATON_HTTP_PORT",
                "9090",
                "BATON_LEADER_ELECTION",
                "false",
                "BATON_REDIS_TIMEOUT",
                "250ms"),
            true);
    assertThat(c.redis().username()).isEqualTo("baton");
    assertThat(c.redis().password()).isEqualTo("pw");
    assertThat(c.namespaces()).containsExactlyInAnyOrder("a", "b");
    assertThat(c.clusterId()).isEqualTo("eu-1");
    assertThat(c.httpPort()).isEqualTo(9090);
    assertThat(c.leaderElection()).isFalse();
    assertThat(c.redisTimeout()).isEqualTo(Duration.ofMillis(250));
    assertThat(c.toString()).doesNotContain("pw,").doesNotContain("=pw");
  }

  @Test
  void badValuesNameTheVariable() {
    assertThatThrownBy(() -> OperatorConfig.from(Map.of("BATON_HTTP_PORT", "http"), false))
        .hasMessageContaining("BATON_HTTP_PORT: 'http' is not a port");
    // Refused when read, not when the server fails to bind it; 0 (any free port) is a port here.
    assertThatThrownBy(() -> OperatorConfig.from(Map.of("BATON_HTTP_PORT", "70000"), false))
        .hasMessageContaining("BATON_HTTP_PORT: '70000' is not a port (0 to 65535)");
    assertThat(OperatorConfig.from(Map.of("BATON_HTTP_PORT", "0"), false).httpPort()).isZero();
    assertThatThrownBy(() -> OperatorConfig.from(Map.of("BATON_CLUSTER_ID", "a|b"), false))
        .hasMessageContaining("BATON_CLUSTER_ID");
    assertThatThrownBy(() -> OperatorConfig.from(Map.of("BATON_LEADER_ELECTION", "yes"), false))
        .hasMessageContaining("BATON_LEADER_ELECTION");
  }

  @Test
  void sharedKeyAndRoleLabelPrefixesAreReadAndChecked() {
    OperatorConfig none = OperatorConfig.from(Map.of(), false);
    assertThat(none.sharedKeyPrefixes()).isEmpty();
    assertThat(none.roleLabelPrefixes()).isEmpty();
    OperatorConfig c =
        OperatorConfig.from(
            Map.of(
                "BATON_SHARED_KEY_PREFIXES", "global/, eu/jobs/",
                "BATON_ROLE_LABEL_PREFIXES", "example.com/,db.example.org/"),
            false);
    assertThat(c.sharedKeyPrefixes()).containsExactly("global/", "eu/jobs/");
    assertThat(c.roleLabelPrefixes()).containsExactly("example.com/", "db.example.org/");

    assertThatThrownBy(
            () -> OperatorConfig.from(Map.of("BATON_SHARED_KEY_PREFIXES", "global"), false))
        .hasMessageContaining("BATON_SHARED_KEY_PREFIXES: 'global'")
        .hasMessageContaining("must end with '/'");
    assertThatThrownBy(
            () -> OperatorConfig.from(Map.of("BATON_SHARED_KEY_PREFIXES", "gate:x/"), false))
        .hasMessageContaining("is reserved");
    assertThatThrownBy(
            () ->
                OperatorConfig.from(Map.of("BATON_SHARED_KEY_PREFIXES", "baton-operator/"), false))
        .hasMessageContaining("is reserved");
    assertThatThrownBy(
            () -> OperatorConfig.from(Map.of("BATON_SHARED_KEY_PREFIXES", "a b/"), false))
        .hasMessageContaining("may hold only letters");
    assertThatThrownBy(
            () -> OperatorConfig.from(Map.of("BATON_ROLE_LABEL_PREFIXES", "Example.com/"), false))
        .hasMessageContaining("BATON_ROLE_LABEL_PREFIXES");
    assertThatThrownBy(
            () -> OperatorConfig.from(Map.of("BATON_ROLE_LABEL_PREFIXES", "example.com"), false))
        .hasMessageContaining("a DNS subdomain and a '/'");
  }
}
