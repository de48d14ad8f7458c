package dev.baton.operator;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AsyncPoolTest {

  @Test
  void raisesTheCommonPoolOnSmallMachinesOnly() {
    assertThat(AsyncPool.parallelism(null, 1)).isEqualTo("4");
    assertThat(AsyncPool.parallelism(null, 2)).isEqualTo("4");
    assertThat(AsyncPool.parallelism("", 2)).isEqualTo("4");
    assertThat(AsyncPool.parallelism(null, 4)).isEqualTo("4");
    // Five processors give the JDK's own pool four threads already.
    assertThat(AsyncPool.parallelism(null, 5)).isNull();
    assertThat(AsyncPool.parallelism(null, 32)).isNull();
  }

  @Test
  void leavesTheUsersChoiceAlone() {
    assertThat(AsyncPool.parallelism("1", 2)).isNull();
    assertThat(AsyncPool.parallelism("8", 2)).isNull();
  }
}
