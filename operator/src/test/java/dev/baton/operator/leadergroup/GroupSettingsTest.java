package dev.baton.operator.leadergroup;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.LeaderGroup;
import dev.baton.testkit.Sandbox;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Defaults of a LeaderGroup spec; bad specs are one table in security/BadInputTest. */
class GroupSettingsTest {

  @Test
  void defaultsApply() {
    LeaderGroup g = Sandbox.group("payments", "payments");
    g.getSpec().setLease(null);
    g.getSpec().setRoleLabel(null);
    GroupSettings s = GroupSettings.of(g);
    assertThat(s.ttl()).isEqualTo(Duration.ofSeconds(10));
    assertThat(s.renewInterval()).isEqualTo(Duration.ofSeconds(3));
    assertThat(s.roleLabel()).isEqualTo("baton.dev/role");
    assertThat(s.keys().holder()).isEqualTo("baton:{shop/payments}:leader");
    assertThat(s.protectLeader()).isTrue();
    assertThat(s.failoverDelayAnnotation()).isEqualTo("0s");
  }

  @Test
  void theLeadersFailoverDelayAnnotationReadsAsZeroOnlyForNoDelay() {
    LeaderGroup g = Sandbox.group("payments", "payments");
    g.getSpec().setFailoverDelay("1m30s");
    assertThat(GroupSettings.of(g).failoverDelayAnnotation()).isEqualTo("90s");
    g.getSpec().setFailoverDelay("1.5s");
    assertThat(GroupSettings.of(g).failoverDelayAnnotation()).isEqualTo("1500ms");
    g.getSpec().setFailoverDelay("0m");
    assertThat(GroupSettings.of(g).failoverDelayAnnotation()).isEqualTo("0s");
    g.getSpec().setPaused(true);
    assertThat(GroupSettings.of(g).failoverDelayAnnotation()).isEqualTo("paused");
  }
}
