package dev.baton.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The one duration grammar: what the operator's parser (spec fields, environment) and the agent's
 * (environment, HTTP parameters, the failover-delay annotation) each accepted and refused before
 * they became this one, case for case.
 */
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
  void durationsAreGoStyle() {
    assertThat(GoDuration.parse("0")).isZero();
    assertThat(GoDuration.parse("250ms")).isEqualTo(Duration.ofMillis(250));
    assertThat(GoDuration.parse("1h2m3s")).isEqualTo(Duration.ofSeconds(3723));
    assertThat(GoDuration.parse("1.5s")).isEqualTo(Duration.ofMillis(1500));
    assertThat(GoDuration.parse("10us")).isEqualTo(Duration.ofNanos(10_000));
    for (String bad : List.of("", "5", "1x", "s", "-1s", "1s 2s", "1.s.s")) {
      assertThatThrownBy(() -> GoDuration.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void isExactToTheNanosecond() {
    assertThat(GoDuration.parse("1.5ms")).isEqualTo(Duration.ofNanos(1_500_000));
    assertThat(GoDuration.parse("0.9999s")).isLessThan(Duration.ofSeconds(1));
    assertThat(GoDuration.parse(" 2s ")).isEqualTo(Duration.ofSeconds(2));
  }

  @Test
  void aDurationTooLongForNanosecondsIsTheLongestThereIs() {
    assertThat(GoDuration.parse("9".repeat(40) + "h")).isEqualTo(GoDuration.MAX);
    assertThat(GoDuration.parse("2562047h")).isLessThan(GoDuration.MAX);
    assertThat(GoDuration.MAX.toNanos()).isEqualTo(Long.MAX_VALUE);
  }
}
