package dev.baton.agent.gate;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class GateWindowTest {

  @Test
  void aShutWindowPassesNothing() {
    assertThat(GateWindow.SHUT.mayRelay(0)).isFalse();
    assertThat(GateWindow.SHUT.until(100).mayRelay(0)).isFalse();
  }

  @Test
  void anOpenWindowPassesUntilItsDeadlineAndNotAtIt() {
    GateWindow w = GateWindow.SHUT.until(1_000).opened();
    assertThat(w.mayRelay(999)).isTrue();
    assertThat(w.mayRelay(1_000)).isFalse();
    assertThat(w.mayRelay(1_001)).isFalse();
  }

  @Test
  void theDeadlineIsComparedAcrossTheClocksWrap() {
    long until = Long.MIN_VALUE + 10; // nanoTime may be anywhere; differences decide
    GateWindow w = GateWindow.SHUT.until(until).opened();
    assertThat(w.mayRelay(Long.MAX_VALUE - 10)).isTrue();
    assertThat(w.mayRelay(until + 1)).isFalse();
  }

  @Test
  void anOpenWindowNotYetToldADeadlinePassesAndShuttingKeepsTheDeadline() {
    GateWindow w = GateWindow.SHUT.opened();
    assertThat(w.mayRelay(Long.MAX_VALUE)).isTrue();
    GateWindow shut = w.until(5).shut();
    assertThat(shut.mayRelay(0)).isFalse();
    assertThat(shut.opened().mayRelay(4)).isTrue();
    assertThat(shut.opened().mayRelay(5)).isFalse();
  }
}
