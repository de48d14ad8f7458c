package dev.baton.operator.kube;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class LabelSelectorsTest {

  private static LabelSelector expr(String key, String op, String... values) {
    return new LabelSelectorBuilder()
        .addNewMatchExpression()
        .withKey(key)
        .withOperator(op)
        .withValues(List.of(values))
        .endMatchExpression()
        .build();
  }

  @Test
  void matchesLikeTheApiServer() {
    Map<String, String> labels = Map.of("app", "pay", "tier", "web");
    assertThat(LabelSelectors.matches(null, labels)).isFalse();
    assertThat(LabelSelectors.matches(new LabelSelector(), labels)).isTrue();
    assertThat(
            LabelSelectors.matches(
                new LabelSelectorBuilder().withMatchLabels(Map.of("app", "pay")).build(), labels))
        .isTrue();
    assertThat(
            LabelSelectors.matches(
                new LabelSelectorBuilder().withMatchLabels(Map.of("app", "other")).build(), labels))
        .isFalse();
    assertThat(LabelSelectors.matches(expr("tier", "In", "web", "api"), labels)).isTrue();
    assertThat(LabelSelectors.matches(expr("tier", "NotIn", "web"), labels)).isFalse();
    assertThat(LabelSelectors.matches(expr("zone", "NotIn", "a"), labels)).isTrue();
    assertThat(LabelSelectors.matches(expr("app", "Exists"), labels)).isTrue();
    assertThat(LabelSelectors.matches(expr("app", "DoesNotExist"), labels)).isFalse();
    assertThat(LabelSelectors.matches(expr("app", "Exists"), null)).isFalse();
  }
}
