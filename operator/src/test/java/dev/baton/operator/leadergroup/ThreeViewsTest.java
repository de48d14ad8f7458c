package dev.baton.operator.leadergroup;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import org.junit.jupiter.api.Test;

class ThreeViewsTest {

  @Test
  void agreeWhenAllNameTheHolderOrAllNameNobody() {
    assertThat(new ThreeViews("a", Set.of("a"), Set.of("a")).disagreement()).isNull();
    assertThat(new ThreeViews("a", Set.of("a"), null).disagreement()).isNull();
    assertThat(new ThreeViews(null, Set.of(), Set.of()).disagreement()).isNull();
  }

  @Test
  void anyViewNamingAnotherPodOrASecondPodDisagrees() {
    assertThat(new ThreeViews("a", Set.of("b"), Set.of("a")).disagreement())
        .isEqualTo("Redis holder a, pods labeled leader [b], leader Service endpoints [a]");
    assertThat(new ThreeViews("a", Set.of("a"), Set.of("a", "x")).disagreement())
        .contains("endpoints [a, x]");
    assertThat(new ThreeViews("a", Set.of("a"), Set.of()).disagreement()).isNotNull();
    assertThat(new ThreeViews(null, Set.of("a"), null).disagreement())
        .isEqualTo("Redis holder none, pods labeled leader [a]");
  }
}
