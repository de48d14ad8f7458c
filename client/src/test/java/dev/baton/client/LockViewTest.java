package dev.baton.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class LockViewTest {

  private static InstanceView held(String name, String value, long pttl, long counter) {
    return new InstanceView(name, true, false, value, pttl, counter, -1, false, null);
  }

  private static InstanceView down(String name) {
    return InstanceView.unreachable(name, "RedisConnectionException");
  }

  @Test
  void holderNeedsAMajorityOfAllInstancesNotOfTheReachableOnes() {
    LockView view =
        new LockView(
            List.of(
                held("a", "v", 900, 7), held("b", "v", 800, 7), down("c"), down("d"), down("e")),
            3);
    assertThat(view.quorumReachable()).isFalse();
    assertThat(view.holder()).isNull();
    assertThat(view.mostHeld()).isEqualTo("v");
    assertThat(view.unreachableDescriptions())
        .containsExactly(
            "c (RedisConnectionException)",
            "d (RedisConnectionException)",
            "e (RedisConnectionException)");
  }

  @Test
  void expiryIsWhenTheHolderLosesItsMajority() {
    LockView view =
        new LockView(
            List.of(
                held("a", "v", 900, 7),
                held("b", "v", 500, 6),
                held("c", "v", 700, 7),
                held("d", "w", 100, 3),
                down("e")),
            3);
    assertThat(view.holder()).isEqualTo("v");
    assertThat(view.pttlMillis()).isEqualTo(500);
    assertThat(view.holderToken()).isEqualTo(7);
    assertThat(view.values()).containsExactly("v", "w");
  }

  @Test
  void aFreeLockHasNoHolderNoExpiryAndNoToken() {
    LockView view = new LockView(List.of(held("redis", null, -2, 12)), 1);
    assertThat(view.holder()).isNull();
    assertThat(view.pttlMillis()).isEqualTo(-2);
    assertThat(view.holderToken()).isZero();
    assertThat(view.maxCounter()).isEqualTo(12);
  }
}
