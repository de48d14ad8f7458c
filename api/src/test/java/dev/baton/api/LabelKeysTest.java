package dev.baton.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.api.v1alpha1.LabelKeys;
import org.junit.jupiter.api.Test;

class LabelKeysTest {

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
