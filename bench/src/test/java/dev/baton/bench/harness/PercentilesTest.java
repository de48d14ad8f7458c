package dev.baton.bench.harness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class PercentilesTest {

  @Test
  void nearestRankPicksMeasuredValues() {
    List<Integer> oneToHundred = IntStream.rangeClosed(1, 100).boxed().toList();
    Percentiles p = Percentiles.of(oneToHundred);
    assertThat(p.count()).isEqualTo(100);
    assertThat(p.p50()).isEqualTo(50);
    assertThat(p.p90()).isEqualTo(90);
    assertThat(p.p99()).isEqualTo(99);
    assertThat(p.max()).isEqualTo(100);
    assertThat(p.mean()).isEqualTo(50.5);
  }

  @Test
  void smallSamplesReportTheirLargestValueAsHighPercentiles() {
    Percentiles p = Percentiles.of(new double[] {15_200, 14_900, 16_800, 15_050, 17_400});
    assertThat(p.p50()).isEqualTo(15_200);
    assertThat(p.p90()).isEqualTo(17_400);
    assertThat(p.p99()).isEqualTo(17_400);
  }

  @Test
  void noSamplesGiveNaNRatherThanAnException() {
    Percentiles empty = Percentiles.of(List.of());
    assertThat(empty.count()).isZero();
    assertThat(empty.p99()).isNaN();
    assertThat(Percentiles.of(List.of(10, 20)).ratios(empty)[0]).isNaN();
  }

  @Test
  void ratiosDivideEachPercentile() {
    Percentiles slow = Percentiles.of(List.of(1000.0, 2000.0));
    Percentiles fast = Percentiles.of(List.of(10.0, 20.0));
    assertThat(slow.ratios(fast)).containsExactly(100, 100, 100, 100);
  }
}
