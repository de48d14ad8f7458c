package dev.baton.client.settings;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import org.junit.jupiter.api.Test;

class PortNumberTest {

  @Test
  void aPortIsADecimalFromOneTo65535WithSpacesAroundIgnored() {
    assertThat(PortNumber.parse("8080")).hasValue(8080);
    assertThat(PortNumber.parse(" 1 ")).hasValue(1);
    assertThat(PortNumber.parse("65535")).hasValue(65535);
    for (String bad : new String[] {"0", "65536", "-1", "eighty", "", " ", "80.0", "0x50"}) {
      assertThat(PortNumber.parse(bad)).as(bad).isEqualTo(OptionalInt.empty());
    }
    assertThat(PortNumber.parse(null)).isEmpty();
  }

  @Test
  void aListeningPortMayBeZeroForAnyFreeOne() {
    assertThat(PortNumber.parseListening("0")).hasValue(0);
    assertThat(PortNumber.parseListening("9443")).hasValue(9443);
    assertThat(PortNumber.parseListening("65536")).isEmpty();
    assertThat(PortNumber.parseListening("-1")).isEmpty();
    assertThat(PortNumber.parseListening("http")).isEmpty();
  }
}
