package dev.baton.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class BenchConfigTest {

  @Test
  void fullRunMeetsTheIssuesTrialCounts() {
    BenchConfig c = BenchConfig.from(Map.of());
    assertThat(c.failoverTrials()).isGreaterThanOrEqualTo(200);
    assertThat(c.anchorTrials()).isEqualTo(5);
    assertThat(c.groups()).isEqualTo(1000);
    assertThat(c.steadySeconds()).isEqualTo(60);
    assertThat(c.deletions()).isEqualTo(100);
    assertThat(c.faultTrials()).isEqualTo(5);
    assertThat(c.only()).isEqualTo(BenchConfig.ALL);
  }

  @Test
  void quickModeShrinksEverything() {
    BenchConfig c = BenchConfig.from(Map.of("bench.quick", "true", "bench.groups", "1000"));
    assertThat(c.failoverTrials()).isLessThan(200);
    assertThat(c.groups()).isEqualTo(100);
    assertThat(c.steadySeconds()).isLessThan(60);
    assertThat(c.faultTrials()).isEqualTo(2);
  }

  @Test
  void aSubsetCanBeRunAlone() {
    BenchConfig c = BenchConfig.from(Map.of("bench.only", "scale"));
    assertThat(c.runs("scale")).isTrue();
    assertThat(c.runs("failover")).isFalse();
    assertThatThrownBy(() -> BenchConfig.from(Map.of("bench.only", "scael")))
        .hasMessageContaining("scael");
  }
}
