package dev.baton.agent.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.testkit.TestCertificates;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AgentConfigTest {

  private static final Map<String, String> POD =
      Map.of("POD_NAME", "payments-0", "POD_NAMESPACE", "shop");

  @Test
  void defaultsFollowTheContract() {
    AgentConfig c = AgentConfig.fromEnvironment(POD);
    assertThat(c.podName()).isEqualTo("payments-0");
    assertThat(c.podNamespace()).isEqualTo("shop");
    assertThat(c.listen().getPort()).isEqualTo(4040);
    assertThat(c.listensOnLoopback()).isTrue();
    assertThat(c.gates()).isEmpty();
    assertThat(c.roleLabel()).isEqualTo("baton.dev/role");
    assertThat(c.confirmWithin()).isEqualTo(Duration.ofSeconds(2));
    assertThat(c.confirmEvery()).isEqualTo(Duration.ofMillis(500));
    assertThat(c.redisUrl()).isEmpty();
    assertThat(c.healthListen()).as("probes on loopback only, unless asked").isEmpty();
  }

  @Test
  void everySettingIsRead() {
    AgentConfig c =
        AgentConfig.fromEnvironment(
            Map.of(
                "POD_NAME", "p",
                "POD_NAMESPACE", "ns",
                "BATON_AGENT_LISTEN", "0.0.0.0:9000",
                "BATON_AGENT_HEALTH_LISTEN", ":4041",
                "BATON_AGENT_GATE", "5432:127.0.0.1:15432, 8080:localhost:80",
                "BATON_AGENT_ROLE_LABEL", "example.com/role",
                "BATON_AGENT_CONFIRM_WITHIN", "1m1.5s",
                "BATON_REDIS_URL", "redis://redis:6379",
                "BATON_REDIS_PASSWORD", "s3cret"));
    assertThat(c.listen().getPort()).isEqualTo(9000);
    assertThat(c.listensOnLoopback()).isFalse();
    assertThat(c.healthListen()).hasValueSatisfying(a -> assertThat(a.getPort()).isEqualTo(4041));
    assertThat(c.gates())
        .containsExactly(
            new GateRoute(5432, "127.0.0.1", 15432), new GateRoute(8080, "localhost", 80));
    assertThat(c.roleLabel()).isEqualTo("example.com/role");
    assertThat(c.confirmWithin()).isEqualTo(Duration.ofMillis(61_500));
    assertThat(c.redisUrl()).hasValue("redis://redis:6379");
    assertThat(c.toString()).doesNotContain("s3cret");
  }

  @Test
  void theSentinelsOwnCredentialsAreReadAndNeverShown() {
    AgentConfig c =
        AgentConfig.fromEnvironment(
            Map.of(
                "POD_NAME", "p",
                "POD_NAMESPACE", "ns",
                "BATON_REDIS_URL", "redis-sentinel://s1:26379,s2:26379/mymaster",
                "BATON_REDIS_SENTINEL_USERNAME", "watcher",
                "BATON_REDIS_SENTINEL_PASSWORD", "sentinel-s3cret"));
    assertThat(c.redisSentinelUsername()).hasValue("watcher");
    assertThat(c.redisSentinelPassword()).hasValue("sentinel-s3cret");
    assertThat(c.toString()).doesNotContain("sentinel-s3cret");
  }

  @Test
  void aCaIsReadAsPemForATlsUrlOnly() {
    Map<String, String> plain =
        Map.of(
            "POD_NAME", "p",
            "POD_NAMESPACE", "ns",
            "BATON_REDIS_URL", "redis://redis:6379",
            "BATON_REDIS_CA", TestCertificates.newCa("agent-config-ca").caPem());
    assertThatThrownBy(() -> AgentConfig.fromEnvironment(plain))
        .hasMessageContaining("BATON_REDIS_CA: a CA is only used with a rediss://");
    Map<String, String> notPem =
        Map.of(
            "POD_NAME", "p",
            "POD_NAMESPACE", "ns",
            "BATON_REDIS_URL", "rediss://redis:6379",
            "BATON_REDIS_CA", "not-a-certificate-4c1e");
    assertThatThrownBy(() -> AgentConfig.fromEnvironment(notPem))
        .hasMessageContaining("BATON_REDIS_CA: the CA certificate is not in PEM format")
        .hasMessageNotContaining("not-a-certificate-4c1e");
  }

  @Test
  void aMissingPodNameOrNamespaceIsNamed() {
    assertThatThrownBy(() -> AgentConfig.fromEnvironment(Map.of("POD_NAMESPACE", "shop")))
        .hasMessageContaining("missing: POD_NAME")
        .hasMessageNotContaining("missing: POD_NAME, POD_NAMESPACE");
    assertThatThrownBy(() -> AgentConfig.fromEnvironment(Map.of()))
        .hasMessageContaining("missing: POD_NAME, POD_NAMESPACE");
  }

  @Test
  void everyMalformedSettingIsReportedAtOnce() {
    Map<String, String> env =
        Map.of(
            "POD_NAME", "p",
            "POD_NAMESPACE", "ns",
            "BATON_AGENT_LISTEN", "localhost:http",
            "BATON_AGENT_GATE", "5432:127.0.0.1",
            "BATON_AGENT_CONFIRM_WITHIN", "10ms");
    assertThatThrownBy(() -> AgentConfig.fromEnvironment(env))
        .hasMessageContaining("BATON_AGENT_LISTEN")
        .hasMessageContaining("BATON_AGENT_GATE")
        .hasMessageContaining("BATON_AGENT_CONFIRM_WITHIN: '10ms' is too short");
  }

  @Test
  void gatesAreParsedStrictly() {
    assertThat(GateRoute.parseList("1:[::1]:2")).containsExactly(new GateRoute(1, "::1", 2));
    assertThat(GateRoute.parseList("")).isEmpty();
    for (String bad : List.of("0:a:1", "1::2", "1:a:70000", "x:a:1", "1:a:2,1:b:3")) {
      assertThatThrownBy(() -> GateRoute.parseList(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void relayModeNamesAGatesPortAndALeaderOnlyPortOfItsOwn() {
    Map<String, String> env =
        Map.of(
            "POD_NAME", "p",
            "POD_NAMESPACE", "ns",
            "BATON_AGENT_GATE", "8080:127.0.0.1:80",
            "BATON_AGENT_RELAY", "8080:8081",
            "BATON_AGENT_GATE_BIND", "10.0.0.7",
            "BATON_REDIS_URL", "redis://redis:6379");
    AgentConfig c = AgentConfig.fromEnvironment(env);
    assertThat(c.relays()).containsExactly(Map.entry(8080, 8081));
    assertThat(c.gateBind()).contains("10.0.0.7");
    assertThat(c.relayHold()).isEqualTo(Duration.ofSeconds(1));
    assertThat(c.relayDrain()).isEqualTo(Duration.ofSeconds(2));
    assertThat(AgentConfig.fromEnvironment(POD).relays()).isEmpty();
    var withoutRedis = new java.util.HashMap<>(env);
    withoutRedis.remove("BATON_REDIS_URL");
    assertThatThrownBy(() -> AgentConfig.fromEnvironment(withoutRedis))
        .hasMessageContaining("BATON_AGENT_RELAY needs BATON_REDIS_URL");

    var held = new java.util.HashMap<>(env);
    held.put("BATON_AGENT_RELAY_HOLD", "250ms");
    assertThat(AgentConfig.fromEnvironment(held).relayHold()).isEqualTo(Duration.ofMillis(250));
    for (String bad : new String[] {"0s", "-1s", "31s", "soon"}) {
      held.put("BATON_AGENT_RELAY_HOLD", bad);
      assertThatThrownBy(() -> AgentConfig.fromEnvironment(held))
          .as(bad)
          .hasMessageContaining("BATON_AGENT_RELAY_HOLD");
    }

    for (String bad : new String[] {"9090:9091", "8080:80", "8080", "8080:8080"}) {
      var withBad = new java.util.HashMap<>(env);
      withBad.put("BATON_AGENT_RELAY", bad);
      withBad.put("BATON_AGENT_GATE", "8080:127.0.0.1:80,80:127.0.0.1:81");
      assertThatThrownBy(() -> AgentConfig.fromEnvironment(withBad))
          .as(bad)
          .hasMessageContaining("BATON_AGENT_RELAY");
    }
  }
}
