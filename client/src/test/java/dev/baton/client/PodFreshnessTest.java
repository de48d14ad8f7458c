package dev.baton.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class PodFreshnessTest {

  private final PodFreshness freshness = new PodFreshness();

  @Test
  void aWatchEventOlderThanAReadAlreadyPassedOnIsDropped() {
    // A read (sent at 10) showed version 7, not ready; the event of version 5 (ready) arrives
    // after.
    assertThat(freshness.newer(7, 10, true)).isTrue();
    assertThat(freshness.newer(5, 20, false)).isFalse();
    assertThat(freshness.newer(8, 30, false)).isTrue();
  }

  @Test
  void aReadSentBeforeTheLastEventIsDroppedWhenNoVersionTellsOtherwise() {
    assertThat(freshness.newer(-1, 20, false)).isTrue();
    assertThat(freshness.newer(-1, 10, true)).isFalse();
    assertThat(freshness.newer(-1, 30, true)).isTrue();
  }

  @Test
  void aReadSentBeforeTheLastEventButNewerByVersionIsPassedOn() {
    assertThat(freshness.newer(5, 20, false)).isTrue();
    assertThat(freshness.newer(9, 10, true)).isTrue();
    assertThat(freshness.newer(5, 40, true)).isFalse();
  }

  @Test
  void versionsAreReadAsNumbersOrNotAtAll() throws Exception {
    ObjectMapper json = new ObjectMapper();
    assertThat(PodFreshness.version(json.readTree("{\"metadata\":{\"resourceVersion\":\"42\"}}")))
        .isEqualTo(42);
    assertThat(PodFreshness.version(json.readTree("{\"metadata\":{\"resourceVersion\":\"a1\"}}")))
        .isEqualTo(-1);
    assertThat(PodFreshness.version(json.readTree("{\"metadata\":{}}"))).isEqualTo(-1);
  }
}
