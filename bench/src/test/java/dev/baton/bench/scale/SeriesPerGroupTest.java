package dev.baton.bench.scale;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class SeriesPerGroupTest {

  @Test
  void countsTheSamplesOfEachGroupByNamespaceAndIgnoresTheRest() {
    SeriesPerGroup s =
        SeriesPerGroup.of(
            """
            # HELP baton_leadergroup_term Current fencing term
            baton_leadergroup_term{group="a",namespace="ns1"} 2.0
            baton_leadergroup_term{group="a",namespace="ns2"} 1.0
            baton_leader_changes_total{group="a",namespace="ns1",reason="Initial"} 1.0
            baton_leader_changes_total{group="a",namespace="ns1",reason="LeaderDeleted"} 1.0
            baton_failover_duration_seconds_count{namespace="ns1"} 1
            baton_operator_active 1.0
            """);

    assertThat(s.groups()).isEqualTo(2);
    assertThat(s.max()).isEqualTo(3);
    assertThat(s.mean()).isEqualTo(2.0);
  }
}
