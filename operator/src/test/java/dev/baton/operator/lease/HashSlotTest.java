package dev.baton.operator.lease;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.client.ElectionKeys;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Slots as Redis computes them: the expected values are CLUSTER KEYSLOT's on redis-server 7. */
class HashSlotTest {

  @ParameterizedTest
  @CsvSource(
      delimiter = ' ',
      value = {
        "foo 12182",
        "bar 5061",
        "{}foo 9500",
        "{foo 13308",
        "a{foo}b{bar} 12182",
        "baton:{shop/payments}:leader 8815",
        "shop/payments 8815",
        "baton:{ns/é}:lock 750"
      })
  void matchesRedis(String key, int slot) {
    assertThat(HashSlot.of(key)).isEqualTo(slot);
  }

  @Test
  void anElectionsKeysShareASlot() {
    ElectionKeys keys = new ElectionKeys("shop/payments");
    int slot = HashSlot.of(keys.holder());
    assertThat(HashSlot.of(keys.term())).isEqualTo(slot);
    assertThat(HashSlot.of(keys.reservation())).isEqualTo(slot);
    assertThat(HashSlot.of(keys.handover())).isEqualTo(slot);
  }
}
