package dev.baton.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.api.v1alpha1.GoDuration;
import dev.baton.api.v1alpha1.LabelKeys;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class GoDurationTest {

  @Test
  void parsesGoStyleDurations() {
    assertThat(GoDuration.parse("10s")).isEqualTo(Duration.ofSeconds(10));
    assertThat(GoDuration.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(GoDuration.parse("1m30s")).isEqualTo(Duration.ofSeconds(90));
    assertThat(GoDuration.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
    assertThat(GoDuration.parse("2h")).isEqualTo(Duration.ofHours(2));
  }

  @Test
  void refusesAnythingElse() {
    for (String bad : new String[] {"", "10", "s", "-1s", "10 s", "1d", "PT10S"}) {
      assertThatThrownBy(() -> GoDuration.parse(bad))
          .as(bad)
          .hasMessageContaining("is not a duration");
    }
  }

  @Test
  void labelKeysFollowKubernetesRules() {
    assertThat(LabelKeys.isValid("baton.dev/role")).isTrue();
    assertThat(LabelKeys.isValid("role")).isTrue();
    assertThat(LabelKeys.isValid("db.example.com/role")).isTrue();
    assertThat(LabelKeys.isValid("Bad Key")).isFalse();
    assertThat(LabelKeys.isValid("/role")).isFalse();
    assertThat(LabelKeys.isValid("a".repeat(64))).isFalse();
    assertThat(LabelKeys.isValid(null)).isFalse();
  }
}
