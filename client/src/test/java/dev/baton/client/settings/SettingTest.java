package dev.baton.client.settings;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SettingTest {

  private static final Setting<Integer> PORT =
      new Setting<>("BATON_PORT", Integer::parseInt, "8080", "the port");

  private static int positive(String text) {
    int n = Integer.parseInt(text);
    if (n <= 0) {
      throw new IllegalArgumentException("'" + text + "' is not positive");
    }
    return n;
  }

  private static String notAUrl(String text) {
    throw new IllegalArgumentException("'" + text + "' is not a URL");
  }

  @Test
  void anAbsentOrBlankVariableReadsAsItsDefault() {
    List<String> problems = new ArrayList<>();

    assertThat(PORT.read(Map.of(), problems)).isEqualTo(8080);
    assertThat(PORT.read(Map.of("BATON_PORT", "  "), problems)).isEqualTo(8080);
    assertThat(PORT.read(Map.of("BATON_PORT", " 9090 "), problems)).as("trimmed").isEqualTo(9090);
    assertThat(new Setting<>("BATON_X", s -> s, null, "x").read(Map.of(), problems)).isNull();
    assertThat(problems).isEmpty();
  }

  @Test
  void aRefusedValueIsAProblemNamingTheVariable() {
    Setting<Integer> count = new Setting<>("BATON_COUNT", SettingTest::positive, "1", "a count");
    List<String> problems = new ArrayList<>();

    assertThat(count.read(Map.of("BATON_COUNT", "-3"), problems)).isNull();
    assertThat(problems).containsExactly("BATON_COUNT: '-3' is not positive");
    assertThatThrownBy(() -> count.readOrThrow(Map.of("BATON_COUNT", "-3")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("BATON_COUNT: '-3' is not positive");
  }

  @Test
  void aSecretsValueIsNeverInAMessage() {
    String value = "hunter2-not-a-url";
    for (String name : List.of("BATON_REDIS_PASSWORD", "API_TOKEN", "BATON_AGENT_RELAY_SECRET")) {
      Setting<String> secret = new Setting<>(name, SettingTest::notAUrl, null, "a secret");
      List<String> problems = new ArrayList<>();

      assertThat(secret.secret()).isTrue();
      assertThat(secret.read(Map.of(name, value), problems)).isNull();
      assertThat(problems).hasSize(1);
      assertThat(problems.get(0)).startsWith(name).doesNotContain(value);
      Throwable thrown = catchThrowable(() -> secret.readOrThrow(Map.of(name, value)));
      assertThat(thrown).hasMessageStartingWith(name).hasMessageNotContaining(value).hasNoCause();
    }
    assertThat(PORT.secret()).isFalse();
  }

  @Test
  void theTableIsTheReadmes() {
    List<Setting<?>> settings =
        List.of(
            new Setting<>("POD_NAME", s -> s, null, "required", "the pod"),
            new Setting<>("POD_NAMESPACE", s -> s, null, "required", "the pod"),
            new Setting<>("HOST", s -> s, "a.example", "where"),
            new Setting<>("PORT", s -> s, null, "what port"),
            new Setting<>("LIST", s -> s, "", "a list,\nwrapped"),
            new Setting<>("SERVICE", s -> s, "svc", "the Service"),
            new Setting<>("NAMESPACE", s -> s, null, "its own", "the Service"),
            new Setting<>("KUBECONFIG", s -> s, null, "", "outside a cluster"));
    String expected =
        """
        | variable | default | meaning |
        | --- | --- | --- |
        | `POD_NAME`, `POD_NAMESPACE` | required | the pod |
        | `HOST` | `a.example` | where |
        | `PORT` | none | what port |
        | `LIST` | none | a list, wrapped |
        | `SERVICE`, `NAMESPACE` | `svc`, its own | the Service |
        | `KUBECONFIG` | | outside a cluster |
        """;

    assertThat(Setting.table(settings)).isEqualTo(expected);
  }
}
