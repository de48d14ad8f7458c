package dev.baton.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.ConditionType;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;

class ConditionsTest {

  private static final Clock CLOCK =
      Clock.fixed(Instant.parse("2026-12-05T10:00:00Z"), ZoneOffset.UTC);

  private static Condition was(ConditionType type, String status) {
    return new ConditionBuilder()
        .withType(type.name())
        .withStatus(status)
        .withReason("Before")
        .withMessage("as it was")
        .withLastTransitionTime("2026-12-01T00:00:00Z")
        .build();
  }

  @Test
  void aConditionThisPassLeavesAloneIsCarriedOverAsItWas() {
    List<Condition> before =
        List.of(
            was(ConditionType.Conflict, "True"),
            was(ConditionType.Ready, "True"),
            was(ConditionType.Paused, "True"));

    List<Condition> after =
        new Conditions(before, 3L, CLOCK)
            .set(ConditionType.Ready, false, "RedisUnavailable", "Redis did not answer")
            .build();

    assertThat(after).extracting(Condition::getType).containsExactly("Conflict", "Paused", "Ready");
    assertThat(Conditions.find(after, ConditionType.Conflict)).get().isEqualTo(before.get(0));
    Condition ready = Conditions.find(after, ConditionType.Ready).orElseThrow();
    assertThat(ready.getStatus()).isEqualTo("False");
    assertThat(ready.getLastTransitionTime()).isEqualTo("2026-12-05T10:00:00Z");
  }

  @Test
  void onlyADropRemovesOneAndASetAfterItWins() {
    List<Condition> before =
        List.of(was(ConditionType.Paused, "True"), was(ConditionType.QuorumLost, "False"));

    List<Condition> after =
        new Conditions(before, 1L, CLOCK)
            .drop(ConditionType.Paused)
            .drop(ConditionType.QuorumLost)
            .set(ConditionType.QuorumLost, false, "QuorumReachable", "3 of 3")
            .build();

    assertThat(after).extracting(Condition::getType).containsExactly("QuorumLost");
    assertThat(after.get(0).getLastTransitionTime())
        .as("same status: the time it changed is kept")
        .isEqualTo("2026-12-01T00:00:00Z");
  }
}
