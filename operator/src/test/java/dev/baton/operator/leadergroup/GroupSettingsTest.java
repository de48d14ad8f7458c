package dev.baton.operator.leadergroup;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.operator.api.v1alpha1.LeaderGroup;
import dev.baton.operator.api.v1alpha1.RedisConnectionRef;
import dev.baton.operator.demo.Sandbox;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.time.Duration;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

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
  }

  static Stream<Arguments> invalidSpecs() {
    return Stream.of(
        Arguments.of("renew >= ttl", (Consumer<LeaderGroup>) g -> g.getSpec().getLease()
            .setRenewInterval("3s"), "must be shorter than"),
        Arguments.of("ttl not a duration", (Consumer<LeaderGroup>) g -> g.getSpec().getLease()
            .setTtl("ten"), "spec.lease.ttl: 'ten' is not a duration"),
        Arguments.of("ttl too short", (Consumer<LeaderGroup>) g -> g.getSpec().getLease()
            .setTtl("500ms"), "between 1s and 1h"),
        Arguments.of("ttl too long", (Consumer<LeaderGroup>) g -> g.getSpec().getLease()
            .setTtl("2h"), "between 1s and 1h"),
        Arguments.of("renew too short", (Consumer<LeaderGroup>) g -> g.getSpec().getLease()
            .setRenewInterval("10ms"), "at least 100ms"),
        Arguments.of("bad role label", (Consumer<LeaderGroup>) g -> g.getSpec()
            .setRoleLabel("not a label!"), "not a valid label key"),
        Arguments.of("no selector", (Consumer<LeaderGroup>) g -> g.getSpec().setSelector(null),
            "spec.selector is required"),
        Arguments.of("bad operator", (Consumer<LeaderGroup>) g -> g.getSpec().setSelector(
            new LabelSelectorBuilder().addNewMatchExpression().withKey("app")
                .withOperator("Near").endMatchExpression().build()), "unknown operator 'Near'"),
        Arguments.of("In without values", (Consumer<LeaderGroup>) g -> g.getSpec().setSelector(
            new LabelSelectorBuilder().addNewMatchExpression().withKey("app")
                .withOperator("In").endMatchExpression().build()), "needs values"),
        Arguments.of("braces in key", (Consumer<LeaderGroup>) g -> g.getSpec()
            .setElectionKey("a{b}"), "must not contain braces"),
        Arguments.of("secretRef without name", (Consumer<LeaderGroup>) g -> g.getSpec()
            .setRedis(new RedisConnectionRef()), "spec.redis.secretRef.name is required"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidSpecs")
  void invalidSpecsAreRefusedWithAMessageNamingTheField(
      String name, Consumer<LeaderGroup> change, String message) {
    LeaderGroup g = Sandbox.group("payments", "payments");
    change.accept(g);
    assertThatThrownBy(() -> GroupSettings.of(g)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(message);
  }
}
