package dev.baton.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

class PodJsonTest {

  private final ObjectMapper json = new ObjectMapper();

  private PodFacts facts(String status) throws Exception {
    return PodJson.facts(
        json.readTree("{\"metadata\":{\"uid\":\"u1\"},\"status\":" + status + "}"));
  }

  @Test
  void readyIsRunningWithConditionReadyTrue() throws Exception {
    String ready = "[{\"type\":\"Ready\",\"status\":\"True\"}]";
    assertThat(facts("{\"phase\":\"Running\",\"conditions\":" + ready + "}").ready()).isTrue();
    assertThat(facts("{\"phase\":\"Pending\",\"conditions\":" + ready + "}").ready()).isFalse();
    assertThat(
            facts(
                    "{\"phase\":\"Running\",\"conditions\":[{\"type\":\"Ready\",\"status\":\"False\"}]}")
                .ready())
        .isFalse();
    assertThat(facts("{\"phase\":\"Running\"}").ready()).isFalse();
  }

  @Test
  void aTermCountsOnlyOnAPodLabeledLeader() throws Exception {
    var leader =
        json.readTree(
            "{\"labels\":{\"baton.dev/role\":\"leader\"},\"annotations\":{\"baton.dev/term\":\"7\"}}");
    var follower =
        json.readTree(
            "{\"labels\":{\"baton.dev/role\":\"follower\"},\"annotations\":{\"baton.dev/term\":\"7\"}}");
    assertThat(PodJson.term(leader, BatonNames.DEFAULT_ROLE_LABEL)).isEqualTo(7);
    assertThat(PodJson.term(follower, BatonNames.DEFAULT_ROLE_LABEL)).isEqualTo(-1);
  }
}
