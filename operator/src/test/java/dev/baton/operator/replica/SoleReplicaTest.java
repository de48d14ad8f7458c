package dev.baton.operator.replica;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SoleReplicaTest {

  @Test
  void onlyARegistrationOfAnotherReplicaIsAConflict() {
    assertThat(SoleReplica.anotherHolds("op-b", "op-a")).isTrue();
    // The claim failed on a Redis that had the key, the read came from one that has none (a
    // restart in between): nobody else is active, so this replica must not stand down.
    assertThat(SoleReplica.anotherHolds(null, "op-a")).isFalse();
    assertThat(SoleReplica.anotherHolds("op-a", "op-a")).isFalse();
  }
}
