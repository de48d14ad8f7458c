package dev.baton.operator.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class WebhookConfigTest {

  @Test
  void offByDefault() {
    WebhookConfig c = OperatorConfig.from(Map.of(), false).webhook();

    assertThat(c.enabled()).isFalse();
    assertThat(c.agentImage()).isNull();
    assertThat(c.port()).isEqualTo(9443);
    assertThat(c.agentRedisSecret()).isEqualTo("baton-redis");
    assertThat(c.nativeSidecar()).as("auto").isNull();
    assertThat(c.groupRedisUsers()).isFalse();
  }

  @Test
  void perGroupRedisUsersReachTheInjectedAgents() {
    OperatorConfig c = OperatorConfig.from(Map.of("BATON_REDIS_ACL_PER_GROUP", "true"), false);

    assertThat(c.redisAclPerGroup()).isTrue();
    assertThat(c.webhook().groupRedisUsers()).isTrue();
  }

  @Test
  void readsTheChartsVariables() {
    WebhookConfig c =
        OperatorConfig.from(
                Map.of(
                    "BATON_WEBHOOK_ENABLED", "true",
                    "BATON_WEBHOOK_SERVICE", "baton-webhook",
                    "BATON_WEBHOOK_NAMESPACE", "baton-system",
                    "BATON_WEBHOOK_CONFIGURATION", "baton-baton-system",
                    "BATON_WEBHOOK_NATIVE_SIDECAR", "false",
                    "BATON_AGENT_IMAGE", "registry.example/baton:1",
                    "BATON_AGENT_REDIS_SECRET", ""),
                true)
            .webhook();

    assertThat(c.enabled()).isTrue();
    assertThat(c.caSecret()).isEqualTo("baton-webhook-ca");
    assertThat(c.dnsNames())
        .first()
        .as("the name kube-apiserver dials a Service by")
        .isEqualTo("baton-webhook.baton-system.svc");
    assertThat(c.nativeSidecar()).isFalse();
    assertThat(c.agentRedisSecret()).as("given empty: no Secret").isNull();
  }

  @Test
  void refusesAWebhookWithoutTheAgentsImage() {
    assertThatThrownBy(() -> OperatorConfig.from(Map.of("BATON_WEBHOOK_ENABLED", "true"), true))
        .hasMessageContaining("BATON_AGENT_IMAGE");
  }
}
