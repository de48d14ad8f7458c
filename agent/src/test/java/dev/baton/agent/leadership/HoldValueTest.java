package dev.baton.agent.leadership;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class HoldValueTest {

  @Test
  void aHoldNamesItsPodAndWhereToReachIt() {
    String v4 = HoldValue.hold("shop", "payments-0", 7, "n1", 3, "10.244.1.9");
    assertThat(v4).isEqualTo("agent:shop/payments-0:7:n1-3@10.244.1.9");
    assertThat(HoldValue.podOf(v4)).isEqualTo("payments-0");
    assertThat(HoldValue.addressOf(v4)).isEqualTo("10.244.1.9");

    String v6 = HoldValue.hold("shop", "payments-1", 7, "n1", 4, "fd00:10:244::1b");
    assertThat(HoldValue.podOf(v6)).isEqualTo("payments-1");
    assertThat(HoldValue.addressOf(v6)).isEqualTo("fd00:10:244::1b");
  }

  @Test
  void anAddressThatCouldBreakTheValueIsLeftOut() {
    assertThat(HoldValue.hold("shop", "p", 1, "n", 0, null)).isEqualTo("agent:shop/p:1:n-0");
    assertThat(HoldValue.hold("shop", "p", 1, "n", 0, "")).isEqualTo("agent:shop/p:1:n-0");
    assertThat(HoldValue.hold("shop", "p", 1, "n", 0, "10.0.0.1 H"))
        .isEqualTo("agent:shop/p:1:n-0");
    assertThat(HoldValue.addressOf("agent:shop/p:1:n-0")).isNull();
    assertThat(HoldValue.addressOf("agent:shop/p:1:n-0@host name")).isNull();
    String value =
        new HoldValue('H', 1, 2, "r.x", HoldValue.hold("shop", "p", 1, "n", 0, "::1")).raw();
    assertThat(HoldValue.parse(value).hold()).endsWith("@::1");
  }

  @Test
  void theLongestAddressFitsAndALongerOneIsLeftOut() {
    String longest = "ffff:ffff:ffff:ffff:ffff:ffff:255.255.255.255";
    assertThat(longest).hasSize(45);
    assertThat(HoldValue.addressOf(HoldValue.hold("shop", "p", 1, "n", 0, longest)))
        .isEqualTo(longest);
    assertThat(HoldValue.hold("shop", "p", 1, "n", 0, longest + "0"))
        .isEqualTo("agent:shop/p:1:n-0");
  }

  @Test
  void aNameIsReadFromItsFirstCharacterOn() {
    assertThat(HoldValue.podOf("/p:1:n-0")).isEqualTo("p");
    assertThat(HoldValue.addressOf("@10.0.0.1")).isEqualTo("10.0.0.1");
    assertThat(HoldValue.podOf("p:1:n-0")).as("no namespace").isNull();
    assertThat(HoldValue.podOf(null)).isNull();
    assertThat(HoldValue.addressOf(null)).isNull();
  }
}
